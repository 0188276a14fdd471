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
