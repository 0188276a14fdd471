"""`tether` as an agent's shell or a hook runs it: a child process of this checkout.

One place for how the tests start the command, so that each test says only its arguments,
its input and what it expects of the exit code and the output.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.locations import REPO

TETHER = [sys.executable, "-m", "supervisor"]


def run_tether(
    *args: str,
    stdin: str | bytes | None = None,
    env: dict[str, str] | None = None,
    cwd: Path = REPO,
    timeout: float = 60,
) -> subprocess.CompletedProcess:
    """Run ``tether ARGS`` to its end; its output is text, or bytes when ``stdin`` is bytes
    (the hook tests feed and read raw bytes). The exit code is the test's to check."""
    return subprocess.run(
        [*TETHER, *args],
        input=stdin,
        capture_output=True,
        text=not isinstance(stdin, bytes),
        cwd=cwd,
        env=env,
        timeout=timeout,
        check=False,
    )


def run_in_a_terminal(script: str, cwd: Path, env: dict[str, str]) -> tuple[int, bytes]:
    """Run ``python -c SCRIPT`` on a real PTY of its own (a new session), reading what it
    shows so it never blocks on a full terminal; (its exit code, what it showed)."""
    import os
    import pty
    import select

    master, slave = pty.openpty()
    shown = b""
    try:
        child = subprocess.Popen(
            [sys.executable, "-c", script],
            cwd=cwd,
            env=env,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            start_new_session=True,
        )
        os.close(slave)
        slave = -1
        try:
            while child.poll() is None:
                ready, _, _ = select.select([master], [], [], 30)
                if not ready:
                    break
                try:
                    shown += os.read(master, 65536)
                except OSError:
                    break
            code = child.wait(timeout=30)
        finally:
            if child.poll() is None:
                child.kill()
                child.wait(timeout=10)
    finally:
        os.close(master)
        if slave >= 0:
            os.close(slave)
    return code, shown
