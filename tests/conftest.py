"""Shared fixtures: where the captures live, and how to wait on a real terminal."""

from __future__ import annotations

import asyncio
import os
import re
import time
from pathlib import Path

import pytest

from supervisor.session import BACKENDS
from supervisor.session import emulator_class as backend_class

CAPTURES = Path(__file__).resolve().parents[2] / "shared" / "captures"


@pytest.fixture(scope="session", params=BACKENDS)
def emulator_class(request):
    """Each emulator backend in turn: the emulator tests are the contract both must meet."""
    return backend_class(request.param)


@pytest.fixture(scope="session")
def captures_dir() -> Path:
    if not CAPTURES.is_dir():
        pytest.fail(
            f"the real agent captures are missing: expected {CAPTURES} "
            "(shared/ must sit beside the checkout)"
        )
    return CAPTURES


@pytest.fixture
def shell_env(tmp_path) -> dict[str, str]:
    """A predictable bash: no rc files, a plain prompt, the test's own HOME."""
    env = dict(os.environ)
    env.update({"PS1": "$ ", "HOME": str(tmp_path), "TETHER_CONFIG_DIR": str(tmp_path / "cfg")})
    env.pop("PROMPT_COMMAND", None)
    return env


async def wait_for_screen(pilot, app, pattern: str, timeout: float = 15.0) -> str:
    """Pump the app until the agent's screen matches ``pattern``; fail with the screen."""
    regex = re.compile(pattern, re.MULTILINE)
    deadline = time.monotonic() + timeout
    text = ""
    while time.monotonic() < deadline:
        text = "\n".join(app.session.emulator.display())
        if regex.search(text):
            return text
        await pilot.pause(0.05)
    raise AssertionError(f"screen never matched {pattern!r}; screen was:\n{text}")


async def wait_until(pilot, predicate, timeout: float = 15.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        await pilot.pause(0.05)
    raise AssertionError(f"timed out waiting for {what}")


__all__ = ["asyncio", "wait_for_screen", "wait_until"]
