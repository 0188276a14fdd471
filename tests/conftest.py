"""Shared fixtures and helpers: the captures, a `.tether/`, a held git, waiting on the app."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from supervisor.terminal.avt_emulator import AvtEmulator
from supervisor.terminal.backends import ghostty_class
from tests.hook_leaks import (  # noqa: F401 (the session's check that no hook folder leaks)
    _hook_folder_watch,
    pytest_sessionfinish,
    pytest_sessionstart,
    pytest_terminal_summary,
)
from tests.locations import CAPTURES

# A suite started under `nohup` inherits SIGHUP ignored, and so would every tether it starts
# (a run under nohup rightly keeps it ignored): the hang-up tests need what a terminal gives.
if signal.getsignal(signal.SIGHUP) == signal.SIG_IGN:
    signal.signal(signal.SIGHUP, signal.SIG_DFL)

# Every backend of the Emulator Protocol: a new one is added here and must pass the contract.
# pyghostty installs on Linux only (its wheels): elsewhere the contract runs on avt alone.
BACKENDS = {"avt": AvtEmulator}
if ghostty_class() is not None:
    BACKENDS["ghostty"] = ghostty_class()


@pytest.fixture(autouse=True)
def _own_config_dir(tmp_path_factory, monkeypatch):
    """Each test has a config folder of its own: `init` remembers the `.tether/` it made
    as trusted (supervisor/store/trust.py), and must never write the user's real list."""
    monkeypatch.setenv("TETHER_CONFIG_DIR", str(tmp_path_factory.mktemp("config")))


@pytest.fixture(scope="session", params=sorted(BACKENDS))
def emulator_class(request):
    """Each emulator backend in turn: the emulator tests are the contract every one meets."""
    return BACKENDS[request.param]


@pytest.fixture(scope="session")
def captures_dir() -> Path:
    if not CAPTURES.is_dir():
        pytest.fail(
            f"the real agent captures are missing: expected {CAPTURES} "
            "(they are part of the repository: is the checkout complete?)"
        )
    return CAPTURES


GOAL = "count to 400"


@pytest.fixture
def tether(tmp_path: Path):
    """A fresh `.tether/` in ``tmp_path/work``: ``tmp_path`` stays free for the test's files."""
    from supervisor.store.tether_dir import init

    work = tmp_path / "work"
    work.mkdir()
    return init(work, goal=GOAL).tether


@pytest.fixture
def shell_env(tmp_path) -> dict[str, str]:
    """A predictable bash: no rc files, a plain prompt, the test's own HOME."""
    env = dict(os.environ)
    env.update({"PS1": "$ ", "HOME": str(tmp_path), "TETHER_CONFIG_DIR": str(tmp_path / "cfg")})
    env.pop("PROMPT_COMMAND", None)
    return env


class HeldGit:
    """A `git` first on PATH that holds each call until the test lets it go, then runs git.

    A big repository, whose `git status` takes seconds, without a clock: the test sees
    git in the middle of its call for as long as it likes. Calls of `git status` are
    numbered from 1 (the others, such as `git config`, pass at once);
    :meth:`release` lets one call go, or all of them until :meth:`hold`.
    """

    def __init__(self, folder: Path) -> None:
        self.real = shutil.which("git")
        assert self.real, "the git tests need git"
        self.folder = folder
        self.log = folder / "calls"
        self.log.touch()
        (folder / "bin").mkdir()
        script = folder / "bin" / "git"
        script.write_text(
            "#!/bin/sh\n"
            # Only `git status` is slow in a big repository: the other calls run at once.
            f'case " $* " in *" status "*) ;; *) exec \'{self.real}\' "$@";; esac\n'
            # The call's number first, by an atomic mkdir: two calls at once never share one.
            f"n=1; while ! mkdir '{folder}/call-'$n 2>/dev/null; do n=$((n+1)); done\n"
            f"echo \"$*\" >> '{self.log}'\n"
            f"while [ ! -e '{folder}/go' ] && [ ! -e '{folder}/go-'$n ]; do sleep 0.01; done\n"
            f"exec '{self.real}' \"$@\"\n"
        )
        script.chmod(0o755)

    @property
    def bin(self) -> Path:
        return self.folder / "bin"

    def calls(self) -> int:
        return len(self.log.read_text().splitlines())

    def release(self, call: int | None = None) -> None:
        (self.folder / ("go" if call is None else f"go-{call}")).touch()

    def hold(self) -> None:
        """Hold the calls from now on again (after ``release()`` let them all go)."""
        (self.folder / "go").unlink(missing_ok=True)

    def repository(self, path: Path) -> str:
        """A repository at ``path`` with one commit (made with the real git); its HEAD."""
        path.mkdir(parents=True, exist_ok=True)
        git = [self.real, "-C", str(path), "-c", "user.name=t", "-c", "user.email=t@example.com"]
        subprocess.run([*git, "init", "-q"], check=True)
        (path / "README").write_text("a repository\n")
        subprocess.run([*git, "add", "README"], check=True)
        subprocess.run([*git, "commit", "-q", "-m", "first"], check=True)
        done = subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True)
        return done.stdout.decode().strip()


@pytest.fixture
def held_git(tmp_path_factory, monkeypatch) -> Iterator[HeldGit]:
    """:class:`HeldGit` on PATH (released at the end, so nothing is left waiting)."""
    from supervisor.store import checkpoints

    held = HeldGit(tmp_path_factory.mktemp("held-git"))
    monkeypatch.setenv("PATH", f"{held.bin}{os.pathsep}{os.environ.get('PATH', '')}")
    # The test holds git as long as it likes; the 2 s timeout is not what is tested.
    monkeypatch.setattr(checkpoints, "GIT_TIMEOUT_SECONDS", 30.0)
    yield held
    held.release()


def demo_app(
    workdir: Path, env: dict[str, str], delay: str = "0.05", auto_compact: str = "0", **config
):
    """The app running the demo agent in ``workdir``, its replies ``delay`` seconds apart and
    compacting by itself every ``auto_compact`` prompts (0: never; a test types /compact when
    it wants one); ``config`` sets the other :class:`RunConfig` fields (the side pane is
    hidden unless ``side_pane=True``)."""
    from supervisor.app import RunConfig, TetherApp
    from supervisor.config.profiles import load_profile

    env.update({"TETHER_DEMO_DELAY": delay, "TETHER_DEMO_AUTO_COMPACT": auto_compact})
    config.setdefault("side_pane", False)
    argv = load_profile("demo").argv()
    return TetherApp(RunConfig(argv=argv, workdir=workdir, env=env, profile_name="demo", **config))


async def until(predicate, what: str = "condition", timeout: float = 60.0, pause=None) -> None:
    """Wait until ``predicate()`` holds, giving the loop a turn between looks; fail after
    ``timeout`` naming ``what``. ``pause(seconds)``: how to wait (default asyncio.sleep)."""
    pause = pause or asyncio.sleep
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pause(0.02)


def screen_text(session) -> str:
    """The agent's screen as text, one line a row: what a test looks for on it."""
    return "\n".join(session.emulator.display())


async def wait_until(pilot, predicate, timeout: float = 60.0, what: str = "condition") -> None:
    """:func:`until`, pumping the app under test through ``pilot``."""
    await until(predicate, what, timeout, pause=pilot.pause)


def panes_read(app) -> bool:
    """No widget of the app has a file read under way: the side pane's tabs read on worker
    threads, and what they show is final only once each read is applied (``reading``)."""
    return not any(getattr(widget, "reading", False) for widget in app.query("*"))


async def wait_for_panes_read(pilot, timeout: float = 60.0) -> None:
    """Pump the app until every pane has applied the reads it asked for."""
    await wait_until(pilot, lambda: panes_read(pilot.app), timeout, "the panes' reads")


def steady_cursors(app) -> None:
    """Every text area's cursor stops blinking (a blink's phase is a matter of timing), drawn
    where the area has the focus. Textual (8.2) caches a text area's lines under a key that
    holds neither ``cursor_blink`` nor the focus: a line drawn in a blink's dark phase, or
    before the focus came, would be shown again without its cursor, so the cache goes."""
    from textual.widgets import TextArea

    for area in app.screen.query(TextArea):
        area.cursor_blink = False
        area.notify_style_update()  # clears the line cache, and refreshes


async def wait_for_a_still_picture(pilot, timeout: float = 60.0) -> None:
    """Pump the app until two looks a beat apart, with no animation running, draw the same
    picture: a snapshot taken while a late layout pass (a resize, a rewrap) is still due
    would differ by timing."""
    from textual.widgets import TextArea

    def wrapped() -> bool:  # a text area rewraps a layout pass after its width changed
        return all(
            area.wrapped_document._width == area.wrap_width
            for area in pilot.app.query(TextArea)
            if area.soft_wrap and area.is_mounted and area.region.area  # shown: hidden waits
        )

    ids = re.compile(r"terminal-\d+")
    before = None
    deadline = time.monotonic() + timeout  # a busy machine draws slowly, not differently
    while time.monotonic() < deadline:
        await pilot.pause(0.1)
        await pilot.wait_for_animation()  # a tab's underline slides: two looks may catch it still
        if not wrapped() or not panes_read(pilot.app):  # a pane still reading: not final
            before = None
            continue
        now = ids.sub("", pilot.app.export_screenshot())
        if now == before:
            return
        before = now
    raise AssertionError(f"the picture kept changing for {timeout} s")


async def wait_for_screen(pilot, app, pattern: str, timeout: float = 60.0) -> str:
    """Pump the app until the agent's screen matches ``pattern``; fail with the screen."""
    regex = re.compile(pattern, re.MULTILINE)
    screen = ""

    def matched() -> bool:
        nonlocal screen
        screen = screen_text(app.session)
        return regex.search(screen) is not None

    try:
        await wait_until(pilot, matched, timeout, what=f"the screen to match {pattern!r}")
    except AssertionError:
        raise AssertionError(f"screen never matched {pattern!r}; screen was:\n{screen}") from None
    return screen


__all__ = [
    "GOAL",
    "HeldGit",
    "asyncio",
    "demo_app",
    "screen_text",
    "steady_cursors",
    "until",
    "wait_for_screen",
    "wait_until",
]
