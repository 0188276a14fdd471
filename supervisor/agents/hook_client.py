"""The fast path of `tether hook`: hand the call to the running supervisor, if there is one.

A hook process that builds a rehydrate payload itself starts Python, imports the
store and the payload builder and loads the tokenizer: 10-20x a bare
``python -c pass``, on Claude Code's critical path at every compaction. The
supervisor that started the agent has all of that loaded already, so the agent's
environment names its socket (:data:`SOCKET_ENV`) and this client, which imports
only ``os`` and ``socket``, sends it the event, the folder and stdin and prints
its answer. When no supervisor answers the door (none running, another folder,
another profile), the caller handles the hook itself, exactly as before.

The exchange (one connection per hook call):

* request: ``TETHER-HOOK 1``, the event, the folder, the profile, one line each,
  then stdin's bytes until the client shuts its side;
* answer: ``DECLINE`` (handle it yourself), or ``OK <exit> <stdout bytes>
  <stderr bytes>`` followed by those bytes.
"""

from __future__ import annotations

# _socket, not socket: the module around it imports enum and selectors (~2 ms a hook).
import _socket as socket
import os
import stat  # already loaded by os
import sys

from supervisor import environment

SOCKET_ENV = environment.HOOK_SOCKET
PROFILE_ENV = environment.PROFILE  # as supervisor.agents.session_start_answer reads it
MAGIC = b"TETHER-HOOK 1"
STDIN_LIMIT = 1024 * 1024  # hook_command.STDIN_LIMIT (a test holds them equal)
# Claude Code gives a hook 10 s (claude_settings.HOOK_TIMEOUT_S); answer before that.
ANSWER_TIMEOUT_S = 9.0


class Answer:
    """What the supervisor answered: the hook's exit code and its two outputs."""

    __slots__ = ("code", "stderr", "stdout")

    def __init__(self, code: int, stdout: bytes, stderr: bytes) -> None:
        self.code, self.stdout, self.stderr = code, stdout, stderr


def reserve_socket_path() -> str:
    """A socket path in a new private folder (0700) of its own, for the supervisor to
    listen on later: cheap enough to run before the agent is spawned (no tempfile).
    The folder is named after this process, so a start can sweep those whose owner
    died (:mod:`supervisor.agents.hook_folders`)."""
    base = os.environ.get("TMPDIR") or "/tmp"
    for _ in range(100):
        folder = os.path.join(base, f"tether-hook-{os.getpid()}-{os.urandom(6).hex()}")
        try:
            os.mkdir(folder, 0o700)
        except FileExistsError:
            continue
        return os.path.join(folder, "s")
    raise FileExistsError(f"no free name for a socket folder in {base}")


def request(event: str, work_dir: str, data: bytes, profile: str) -> bytes:
    """The bytes of one request."""
    fields = [MAGIC, event.encode(), os.path.abspath(work_dir).encode(), profile.encode()]
    return b"\n".join(fields) + b"\n" + data


def ask(event: str, work_dir: str, data: bytes, path: str | None = None) -> Answer | None:
    """The supervisor's answer to one hook call, or None when the caller must handle it.

    None means nothing reached a supervisor (no socket, nobody listening) or the
    supervisor declined; then nothing was recorded. Once the request is sent, a
    broken answer raises OSError: the call may have been recorded, so it must not
    be handled a second time.
    """
    path = path if path is not None else environment.current().hook_socket
    if not path or any("\n" in f for f in (event, work_dir)):
        return None
    profile = environment.current().profile
    if "\n" in profile:
        return None
    if not is_ours(path):  # another user's socket would receive the hook's input
        return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(ANSWER_TIMEOUT_S)
        try:
            sock.connect(path)
        except OSError:  # no supervisor (gone, or another machine's variable)
            return None
        if not _peer_is_us(sock):
            return None
        try:
            sock.sendall(request(event, work_dir, data, profile))
            sock.shutdown(socket.SHUT_WR)
            reply = _read_all(sock)
        except (BrokenPipeError, ConnectionResetError):
            # The supervisor closed before reading the whole request (a busy one declines
            # unread), so it handled nothing: it reads to the end before it records.
            return None
    finally:
        sock.close()
    return parse_answer(reply)


def is_ours(path: str) -> bool:
    """Whether the socket at ``path`` is this user's, in a private folder of this user's.

    After a tether exits its folder name is free in a shared ``$TMPDIR``: another user
    who makes ``tether-hook-<pid>-<suffix>/s`` again would receive the hook's input
    and answer the agent with what they like. Links are not followed.
    """
    uid = os.getuid()
    try:
        folder = os.lstat(os.path.dirname(path) or ".")
        sock = os.lstat(path)
    except (OSError, ValueError):
        return False
    return (
        stat.S_ISDIR(folder.st_mode)
        and folder.st_uid == uid
        and folder.st_mode & 0o077 == 0
        and stat.S_ISSOCK(sock.st_mode)
        and sock.st_uid == uid
    )


def _peer_is_us(sock: socket.socket) -> bool:
    """The process listening is this user's (Linux says so; elsewhere the stat must do)."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return True
    try:
        creds = sock.getsockopt(socket.SOL_SOCKET, option, 12)  # pid, uid, gid: 3 ints
    except OSError:
        return False
    return int.from_bytes(creds[4:8], sys.byteorder) == os.getuid()


def parse_answer(reply: bytes) -> Answer | None:
    """Read the supervisor's reply; raises OSError when it is not one."""
    head, _, body = reply.partition(b"\n")
    if head == b"DECLINE":
        return None
    parts = head.split(b" ")
    try:
        if len(parts) != 4 or parts[0] != b"OK":
            raise ValueError
        code, n_out, n_err = (int(p) for p in parts[1:])
    except ValueError:
        raise OSError(f"the supervisor's answer is garbled: {head[:80]!r}") from None
    if len(body) != n_out + n_err:
        raise OSError("the supervisor's answer was cut short")
    return Answer(code, body[:n_out], body[n_out:])


def _read_all(sock: socket.socket) -> bytes:
    chunks = []
    while chunk := sock.recv(1 << 16):
        chunks.append(chunk)
    return b"".join(chunks)
