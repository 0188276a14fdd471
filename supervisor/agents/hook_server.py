"""The supervisor's side of the `tether hook` fast path: answer hook calls from this process.

The supervisor has the store and the payload builder loaded (a few seconds after
start, on this server's thread, so start-up does not pay for it) and the tokenizer
(the app warms it after its first frame), so a hook call it answers costs the agent
a small process and a round trip instead of a cold payload build (see
:mod:`supervisor.agents.hook_client` for the exchange). The call is handled by the very same
:func:`supervisor.agents.hook_command.handle` as in the hook's own process, on
this server's thread (never on the event loop: it writes files and asks git),
one call at a time. The socket lives in a private temporary folder (0700).
"""

from __future__ import annotations

import io
import os
import shutil
import socket
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from supervisor.agents import hook_client, hook_folders
from supervisor.agents.hook_command import handle

# Long after start-up is done, long before an agent has worked long enough to compact.
PRELOAD_AFTER_S = 3.0
_HEADER_LIMIT = 3 * 4096 + len(hook_client.MAGIC) + 4
_READ_TIMEOUT_S = 5.0


class HookServer:
    """Listens on a Unix socket for the hook calls of the agent supervised in ``work_dir``."""

    def __init__(self, work_dir: Path | str, *, preload_after: float | None = PRELOAD_AFTER_S):
        self.work_dir = os.path.realpath(work_dir)
        self.path: str | None = None
        self.served = 0  # calls answered here (not declined)
        self._preload_after = preload_after
        self._folder: str | None = None
        self._listener: socket.socket | None = None
        self._thread: threading.Thread | None = None
        self._preload: threading.Timer | None = None
        # The supervisor's: hears each recorded hook event, on this server's thread.
        self.heard: Callable[[dict[str, Any]], None] | None = None

    def reserve(self, path: str | None = None) -> str:
        """The socket's path, before listening (``path``: one from
        :func:`hook_client.reserve_socket_path`): an agent spawned with it before
        :meth:`start` handles its first hook calls itself (nobody at the door yet)."""
        if self.path is None:
            self.path = path if path is not None else hook_client.reserve_socket_path()
            self._folder = os.path.dirname(self.path)
        return self.path

    def start(self) -> str:
        """Listen; returns the socket's path (for :data:`hook_client.SOCKET_ENV`). The
        folders of dead supervisors' sockets are swept meanwhile, once a process."""
        hook_folders.sweep_soon()
        self.reserve()
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            listener.bind(self.path)
            listener.listen(8)
        except OSError:
            listener.close()
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = self.path = None
            raise
        self._listener = listener
        self._thread = threading.Thread(target=self._serve, name="tether-hook-server", daemon=True)
        self._thread.start()
        if self._preload_after is not None:
            self._preload = threading.Timer(self._preload_after, preload)
            self._preload.daemon = True
            self._preload.start()
        return self.path

    def stop(self) -> None:
        """Stop listening and remove the socket; a call being answered is finished first."""
        if self._preload is not None:
            self._preload.cancel()
            self._preload = None
        listener, self._listener = self._listener, None
        if listener is not None:
            try:
                listener.shutdown(socket.SHUT_RDWR)  # wakes the accept() below (Linux)
            except OSError:
                pass
            listener.close()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None
        self.path = None

    def _serve(self) -> None:
        listener = self._listener
        while listener is not None and self._listener is listener:
            try:
                conn, _ = listener.accept()
            except OSError:
                return  # stopped
            with conn:
                try:
                    conn.settimeout(_READ_TIMEOUT_S)
                    conn.sendall(self.answer(_read_request(conn)))
                except OSError:
                    pass  # the hook's process went away; it records nothing twice

    def answer(self, request: bytes) -> bytes:
        """The reply to one request's bytes."""
        fields = request.split(b"\n", 4)
        if len(fields) != 5 or fields[0] != hook_client.MAGIC:
            return b"DECLINE\n"
        try:
            event, work_dir, profile = (f.decode() for f in fields[1:4])
        except UnicodeDecodeError:
            return b"DECLINE\n"
        if os.path.realpath(work_dir) != self.work_dir or not _same_profile(profile):
            return b"DECLINE\n"
        out, err = io.StringIO(), io.StringIO()
        try:
            code = handle(event, work_dir, io.BytesIO(fields[4]), out, err, heard=self.heard)
        except Exception as problem:  # as in the hook's own process: never a traceback
            print(f"tether hook: {problem}", file=err)
            code = 0
        self.served += 1
        stdout, stderr = out.getvalue().encode(), err.getvalue().encode()
        return b"OK %d %d %d\n" % (code, len(stdout), len(stderr)) + stdout + stderr


def _same_profile(theirs: str) -> bool:
    """Whether the hook's process would pick the profile this process picks: the answer
    reads ``$TETHER_PROFILE``, which the agent's environment has and ours may not."""
    from supervisor.agents.session_start_answer import DEFAULT_HOOK_PROFILE, PROFILE_ENV

    ours = os.environ.get(PROFILE_ENV) or DEFAULT_HOOK_PROFILE
    return (theirs or DEFAULT_HOOK_PROFILE) == ours


def _read_request(conn: socket.socket) -> bytes:
    limit = _HEADER_LIMIT + hook_client.STDIN_LIMIT + 1
    chunks, size = [], 0
    while size <= limit and (chunk := conn.recv(1 << 16)):
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def preload(tokenizer: bool = False) -> None:
    """Import the payload builder (and with ``tokenizer`` load the encoding, ~40 MB), so
    the first answer is quick. The server's own preload leaves the tokenizer to the app,
    which warms it after its first frame: a headless supervisor never pays for it."""
    try:
        from supervisor.agents import session_start_answer  # noqa: F401
        from supervisor.rehydrate import tokens

        if tokenizer:
            tokens.exact_available()
    except Exception:  # the answer will load (or report) it then
        pass
