"""The supervisor's side of the `tether hook` fast path: answer hook calls from this process.

The supervisor has the store and the payload builder loaded (a few seconds after
start, on this server's thread, so start-up does not pay for it) and the tokenizer
(the app warms it after its first frame), so a hook call it answers costs the agent
a small process and a round trip instead of a cold payload build (see
:mod:`supervisor.agents.hook_client` for the exchange). The call is handled by the very same
:func:`supervisor.agents.hook_command.handle` as in the hook's own process, on
a thread of its own (never on the event loop: it writes files and asks git). Each
connection is served by its own thread, at most :data:`MAX_CONNECTIONS` at once, and
must deliver its request within :data:`REQUEST_DEADLINE_S`: a silent or slow one
never holds up another, and one beyond the bound is declined at once (the hook then
answers itself). Any profile is served: the answer is built for the profile the
hook's process names, as that process would build it. The socket lives in a private
temporary folder (0700).
"""

from __future__ import annotations

import io
import os
import shutil
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from supervisor.agents import hook_client, hook_folders
from supervisor.agents.hook_command import handle

if TYPE_CHECKING:
    from supervisor.rehydrate.live_notes import LiveNotes

# Long after start-up is done, long before an agent has worked long enough to compact.
PRELOAD_AFTER_S = 3.0
_HEADER_LIMIT = 3 * 4096 + len(hook_client.MAGIC) + 4
# The hook's process has read its stdin before it connects and sends it at once: a
# request that takes longer than this to arrive is not one, and is declined.
REQUEST_DEADLINE_S = 2.0
# Connections served at once; one more is declined at once (the hook answers itself).
MAX_CONNECTIONS = 16
# How long stop() waits for the calls being answered (the hook's client waits 9 s).
STOP_WAIT_S = 10.0


class HookServer:
    """Listens on a Unix socket for the hook calls of the agent supervised in ``work_dir``."""

    def __init__(
        self, work_dir: Path | str, *, preload_after: float | None = PRELOAD_AFTER_S
    ) -> None:
        self.work_dir = os.path.realpath(work_dir)
        self.path: str | None = None
        self.served = 0  # calls answered here (not declined)
        self._preload_after = preload_after
        self._folder: str | None = None
        self._listener: socket.socket | None = None
        self._thread: threading.Thread | None = None
        self._preload: threading.Timer | None = None
        self._lock = threading.Lock()
        self._connections: set[threading.Thread] = set()  # serving one connection each
        # The supervisor's: hears each recorded hook event, on the connection's thread.
        self.heard: Callable[[dict[str, Any]], None] | None = None
        # The supervision's parse of notes.md and task.md, which the answers read.
        self.live: LiveNotes | None = None

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
            self._thread.join(timeout=STOP_WAIT_S)
            self._thread = None
        deadline = time.monotonic() + STOP_WAIT_S
        with self._lock:
            serving = list(self._connections)
        for thread in serving:
            thread.join(timeout=max(0.0, deadline - time.monotonic()))
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
            with self._lock:  # started under the lock: stop() joins only started threads
                busy = len(self._connections) >= MAX_CONNECTIONS
                if not busy:
                    thread = threading.Thread(
                        target=self._serve_one, args=(conn,), name="tether-hook-call", daemon=True
                    )
                    self._connections.add(thread)
                    thread.start()
            if busy:
                _decline_now(conn)

    def _serve_one(self, conn: socket.socket) -> None:
        """One hook call, on its own thread: its request within the deadline, then its answer."""
        try:
            with conn:
                request = _read_request(conn, time.monotonic() + REQUEST_DEADLINE_S)
                reply = b"DECLINE\n" if request is None else self.answer(request)
                conn.settimeout(hook_client.ANSWER_TIMEOUT_S)
                conn.sendall(reply)
        except OSError:
            pass  # the hook's process went away; it records nothing twice
        finally:
            with self._lock:
                self._connections.discard(threading.current_thread())

    def answer(self, request: bytes) -> bytes:
        """The reply to one request's bytes."""
        fields = request.split(b"\n", 4)
        if len(fields) != 5 or fields[0] != hook_client.MAGIC:
            return b"DECLINE\n"
        try:
            event, work_dir, profile = (f.decode() for f in fields[1:4])
        except UnicodeDecodeError:
            return b"DECLINE\n"
        if os.path.realpath(work_dir) != self.work_dir:
            return b"DECLINE\n"
        out, err = io.StringIO(), io.StringIO()
        try:
            code = handle(
                event,
                work_dir,
                io.BytesIO(fields[4]),
                out,
                err,
                profile=_hook_profile(profile),
                heard=self.heard,
                live=self.live,
            )
        except Exception as problem:  # as in the hook's own process: never a traceback
            print(f"tether hook: {problem}", file=err)
            code = 0
        with self._lock:
            self.served += 1
        stdout = out.getvalue().encode("utf-8", "backslashreplace")
        stderr = err.getvalue().encode("utf-8", "backslashreplace")
        return b"OK %d %d %d\n" % (code, len(stdout), len(stderr)) + stdout + stderr


def _hook_profile(theirs: str) -> str:
    """The profile the hook's process would answer for: the one its environment names
    (``$TETHER_PROFILE``, sent with the request), else the default, never ours."""
    from supervisor.agents.session_start_answer import DEFAULT_HOOK_PROFILE

    return theirs or DEFAULT_HOOK_PROFILE


def _decline_now(conn: socket.socket) -> None:
    """Too many calls at once: the hook answers this one itself (nothing was recorded)."""
    with conn:
        try:
            conn.setblocking(False)
            conn.send(b"DECLINE\n")
        except OSError:
            pass


def _read_request(conn: socket.socket, deadline: float) -> bytes | None:
    """The request's bytes, up to the client's end; None when it did not come whole by
    ``deadline`` (a silent or slow peer) or was longer than any request."""
    limit = _HEADER_LIMIT + hook_client.STDIN_LIMIT + 1
    chunks: list[bytes] = []
    size = 0
    while size <= limit:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        conn.settimeout(left)
        try:
            chunk = conn.recv(1 << 16)
        except TimeoutError:
            return None
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
    return None


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
