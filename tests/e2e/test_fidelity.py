"""Scenario 6 of issue 6: what tether's terminal pane shows equals what tmux shows.

For each agent, the same inputs go to two runs side by side: `tether run AGENT` in tmux at
200x50 (its emulator's text comes from ``TETHER_SCREEN_DUMP``) and the bare agent in its own
tmux pane of exactly the size tether gave the agent (read from the session recording's
header). After each step the two screens must converge to the same text (``capture-pane -p``
against the emulator's rows, trailing spaces aside), volatile parts masked: clock times,
durations, Claude's random spinner verb, session ids and the temp folders (both runs use
folder names of the same length, so every line wraps the same way).

The bare Claude run gets hook settings of the same shape (`tether hook EVENT --dir` its own
folder, given the tether run's notes before each step): Claude prints each compaction hook's
line and the PreCompact hook's text (the pins), and the screens would otherwise differ by
design, not by emulation. Codex runs with
``[tui] show_tooltips = false`` in both runs (its tips are picked at random).
"""

from __future__ import annotations

import contextlib
import difflib
import json
import re
import shutil
import threading
import time
from pathlib import Path

import pytest

from supervisor.agents.claude_settings import settings as claude_hook_settings
from tests.e2e.agents import CLAUDE_MARKERS as CM
from tests.e2e.agents import CODEX_MARKERS as XM
from tests.e2e.tether_driver import (
    DECISION,
    TetherRun,
    Timer,
    tether_run_fixture,  # noqa: F401  (the tether_run fixture)
)
from tests.e2e.tmux import TmuxSession

pytestmark = pytest.mark.e2e

# Same length, so the masked paths leave every line (and its wrapping) identical.
VIA, PLAIN = "viatether", "plaintmux"

_MASKS = [
    (re.compile(rf"/tmp/pytest-of-[^/\s]+/pytest-\d+/[^/\s]+/(?:{VIA}|{PLAIN})"), "<TMP>"),
    (re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"), "<UUID>"),
    (re.compile(r"\b\d{1,2}:\d{2}(?::\d{2})?(?: ?[AP]M)?\b"), "<TIME>"),
    (re.compile(r"<?\b\d+(?:m \d+)?s\b"), "<DUR>"),
    (re.compile(r"(✻|[·✢✳✶✽*]) \S+ for <DUR>"), r"\1 <VERB> for <DUR>"),  # "✻ Sautéed for 0s"
]

CODEX_TOML = "\n[tui]\nshow_tooltips = false\n"


def normalise(text: str, rows: int) -> list[str]:
    """Rows with trailing spaces dropped and volatile parts masked, padded to ``rows``."""
    lines = [line.rstrip() for line in text.split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    lines = lines[:rows] + [""] * (rows - len(lines))
    out = []
    for line in lines:
        for rx, repl in _MASKS:
            line = rx.sub(repl, line)
        out.append(line)
    return out


def _cast(run: TetherRun) -> Path | None:
    casts = sorted((run.project / ".tether" / "sessions").glob("*.cast"))
    return casts[0] if casts else None


def agent_pane_size(run: TetherRun) -> tuple[int, int]:
    """The agent's screen size inside tether now: the recording's header, then its last
    resize event (tether's loss banner takes a row from the agent's pane while it shows)."""

    def size() -> tuple[int, int] | None:
        cast = _cast(run)
        if cast is None:
            return None
        lines = cast.read_text().split("\n")
        if not lines[0].strip():
            return None
        head = json.loads(lines[0])
        cols, rows = int(head["width"]), int(head["height"])
        for line in lines[1:]:
            if '"r"' in line:
                with contextlib.suppress(ValueError, IndexError):
                    event = json.loads(line)
                    if event[1] == "r":
                        cols, rows = map(int, event[2].split("x"))
        return cols, rows

    return run.poll(size, 10, "the session recording's header")


class SizeMirror(threading.Thread):
    """Give the bare agent's pane every size tether gives its agent, as it happens: a
    resize is an input too, and both agents redraw on it."""

    def __init__(self, run: TetherRun, plain: TmuxSession) -> None:
        super().__init__(daemon=True)
        self.run_, self.plain = run, plain
        self.size = (plain.width, plain.height)
        self.stop = threading.Event()

    def __enter__(self) -> SizeMirror:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.join(5)

    def run(self) -> None:
        while not self.stop.wait(0.1):
            with contextlib.suppress(Exception):
                size = agent_pane_size(self.run_)
                if size != self.size:
                    cols, rows = size
                    self.plain.tmux(
                        "resize-window", "-t", self.plain.name, "-x", str(cols), "-y", str(rows)
                    )
                    self.size = size


def assert_same_screen(run: TetherRun, plain: TmuxSession, step: str) -> None:
    """Poll (bounded) until both screens have the same size and text; else fail with a diff."""
    deadline = time.monotonic() + 15
    while True:
        cols, rows = agent_pane_size(run)
        pane = plain.tmux(
            "display-message", "-p", "-t", plain.target, "#{pane_width}x#{pane_height}"
        ).strip()
        ours = normalise(run.agent_screen(), rows)
        theirs = normalise(plain.capture(), rows)
        if ours == theirs and pane == f"{cols}x{rows}":
            return
        if time.monotonic() >= deadline:
            diff = "\n".join(difflib.unified_diff(theirs, ours, "tmux", "tether", lineterm="", n=2))
            raise AssertionError(
                f"after {step}: tether's emulator text ({cols}x{rows}) differs from tmux's "
                f"pane ({pane})\n{diff}\n"
                f"----- tmux (raw) -----\n{plain.capture()}\n"
                f"----- tether (raw) -----\n{run.agent_screen()}"
            )
        time.sleep(0.3)


def same_terminal(env: dict[str, str]) -> dict[str, str]:
    """The bare run's environment with what tether's PTY adds for its agent
    (supervisor.terminal.pty_host.terminal_environment): without LANG, Codex prints 12-hour
    times."""
    return {**env, "LANG": "C.UTF-8", "COLORTERM": "truecolor"}


def both(run: TetherRun, plain: TmuxSession, line: str, done: str, enter_delay=0.5) -> None:
    """Type ``line`` into both runs; wait until ``done`` is on both screens."""
    run.type_line(line, enter_delay=enter_delay)
    plain.type_line(line, enter_delay=enter_delay)
    run.wait_screen(done, timeout=30)
    plain.wait_for(done, timeout=30)


CLAUDE_DONE = r"(?:.*\n)+?.*" + CM["turn_done"]
CLAUDE_STEPS = [
    ("hello fake model", r"FAKE-REPLY 1: ack 'hello fake model'" + CLAUDE_DONE),
    (DECISION, r"FAKE-REPLY 2: ack 'DECISION" + CLAUDE_DONE),
    ("/compact", CM["compacted"]),
]
CODEX_DONE = r"(?:.*\n)+?.*" + XM["turn_done"]
CODEX_STEPS = [
    ("hello codex", r"FAKE-REPLY 1: ack 'hello codex'" + CODEX_DONE),
    (DECISION, r"ack 'DECISION: refresh tokens in Redis" + CODEX_DONE),
    ("/compact", XM["compacted"]),
]


def _steps(
    run: TetherRun, plain: TmuxSession, steps: list[tuple[str, str]], before=lambda: None
) -> None:
    """Start-up, then each line typed into both runs: the screens must agree after each.
    ``before`` runs before each line is typed (the Claude run's state copied to the bare's)."""
    assert_same_screen(run, plain, "start-up")
    for line, done in steps:
        before()
        both(run, plain, line, done, enter_delay=1.0 if line.startswith("/") else 0.5)
        assert_same_screen(run, plain, repr(line[:30]))


def same_notes(via: Path, bare: Path) -> None:
    """The bare folder's `.tether/` holds the tether run's notes: the PreCompact hook prints
    the pinned decisions for the summarizer, and Claude shows that text on screen."""
    folder = bare / ".tether"
    folder.mkdir(mode=0o700, exist_ok=True)
    for name in ("task.md", "notes.md"):
        shutil.copyfile(via / ".tether" / name, folder / name)


def test_6_claude_screen_fidelity(make_claude_env, fake_server, tether_run, tmux_session):
    with Timer("6 fidelity claude"):
        via, bare = make_claude_env(name=VIA), make_claude_env(name=PLAIN)
        run = tether_run(via, fake_server, "claude", ready=CM["ready"])
        cols, rows = agent_pane_size(run)
        hooks = bare.project.parent / "claude-settings.json"
        hooks.write_text(json.dumps(claude_hook_settings(bare.project)))
        plain = tmux_session(cols, rows)
        plain.start([*bare.argv, "--settings", str(hooks)], same_terminal(bare.env), bare.project)
        plain.wait_for(CM["ready"], timeout=30)
        with SizeMirror(run, plain):
            _steps(run, plain, CLAUDE_STEPS, before=lambda: same_notes(run.project, bare.project))


def test_6_codex_screen_fidelity(make_codex_env, fake_server, tether_run, tmux_session):
    with Timer("6 fidelity codex"):
        via = make_codex_env(name=VIA, extra_toml=CODEX_TOML)
        bare = make_codex_env(name=PLAIN, extra_toml=CODEX_TOML)
        run = tether_run(via, fake_server, "codex", ready=XM["ready"])
        cols, rows = agent_pane_size(run)
        plain = tmux_session(cols, rows)
        plain.start(bare.argv, same_terminal(bare.env), bare.project)
        plain.wait_for(XM["ready"], timeout=30)
        with SizeMirror(run, plain):
            _steps(run, plain, CODEX_STEPS)
