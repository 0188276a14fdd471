"""Drive `tether run claude|codex` in a detached tmux session, as a user would (e2e tier).

``start_tether`` launches tether in the agent's project folder with the agent's isolated
environment (from ``make_claude_env`` / ``make_codex_env``) plus the venv on ``PATH`` (the
Claude hook settings call the absolute ``tether`` script) and ``TETHER_SCREEN_DUMP``, so the
test can read the agent's screen exactly as tether's emulator holds it. ``TetherRun`` then
types into tether, presses its keys, waits (bounded polls) for the agent's screen, for lines
in ``.tether/events.jsonl`` and for requests in the fake server's log; every failure carries
the tether screen (tmux capture), the agent screen, the last events and the server log tail.

The ``tether_run`` fixture gives a factory and, at teardown, kills the tmux server and then
every process that was under it (tether, the agent, its children), so nothing is left running.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.fake_server import (
    ServerProcess,
    chat_last_prompt,
    claude_last_prompt,
    codex_last_prompt,
)
from tests.e2e.tmux import TmuxSession, wait_until

REPO = Path(__file__).resolve().parents[2]
VENV_BIN = Path(sys.executable).parent
TETHER = VENV_BIN / "tether"

DECISION = (
    "DECISION: refresh tokens in Redis, 15 minute TTL, rotate on use, "
    "because the mobile client cannot persist tokens"
)
SPECIFICS = ("Redis", "15 minute", "rotate on use", "mobile client")
GOAL = "Ship the login endpoint with refresh tokens"

# tether at 200x50: the agent pane is ~62% of the width (the rest is the side pane).
WIDTH, HEIGHT = 200, 50


def tether_env(setup: Any, dump: Path) -> dict[str, str]:
    """The agent's isolated environment plus what tether needs: the venv on PATH, its own
    config folder (no user keymap or profiles), the screen dump."""
    env = dict(setup.env)
    env["PATH"] = os.pathsep.join([str(VENV_BIN), env.get("PATH", "")])
    env["TETHER_CONFIG_DIR"] = str(setup.project.parent / "tether-config")
    env["TETHER_SCREEN_DUMP"] = str(dump)
    return env


# --------------------------------------------------------------------------- processes


def _ppid(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def children(pid: int) -> list[int]:
    """Direct children of ``pid`` (live or zombie)."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and _ppid(int(entry.name)) == pid:
            out.append(int(entry.name))
    return sorted(out)


def descendants(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        for child in children(todo.pop()):
            found.append(child)
            todo.append(child)
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode().strip()
    except OSError:
        return ""


def processes_mentioning(text: str) -> list[str]:
    """Live processes whose command line or environment mentions ``text``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes().decode(errors="replace")
        except OSError:
            continue
        line = cmdline(int(entry.name))
        if alive(int(entry.name)) and (text in line or text in environ):
            found.append(f"{entry.name}: {line[:200]}")
    return found


def kill_all(pids: list[int], timeout: float = 3.0) -> None:
    """SIGTERM what is still alive, wait (bounded), then SIGKILL."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        live = [p for p in pids if alive(p)]
        for pid in live:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)
        deadline = time.monotonic() + timeout
        while any(alive(p) for p in live) and time.monotonic() < deadline:
            time.sleep(0.05)


# --------------------------------------------------------------------------- the run


class TetherRun:
    """One `tether run` in tmux, with the agent's setup and the fake server beside it."""

    def __init__(
        self, tm: TmuxSession, setup: Any, server: ServerProcess, dump: Path, agent: str
    ) -> None:
        self.tm, self.setup, self.server, self.dump, self.agent = tm, setup, server, dump, agent
        self.project: Path = setup.project
        self.events_path = self.project / ".tether" / "events.jsonl"
        self.started = time.monotonic()
        self.known_pids: set[int] = set()
        self.mark = ""  # an events.jsonl "at": tests look at events after it

    # ------------------------------------------------------------ diagnostics
    def diagnostics(self, events: int = 25, requests: int = 4) -> str:
        parts = ["----- tether screen (tmux) -----", self.tm.capture()]
        parts += ["----- agent screen (tether's emulator) -----", self.agent_screen()]
        parts.append(f"----- last {events} events -----")
        for event in self.events()[-events:]:
            parts.append(json.dumps(event, ensure_ascii=False)[:400])
        parts.append(f"----- last {requests} model requests -----")
        for entry in self.server.requests()[-requests:]:
            prompt = ""
            body = entry.get("body")
            if isinstance(body, dict):
                last = {"claude": claude_last_prompt, "codex": codex_last_prompt}.get(
                    self.agent, chat_last_prompt
                )
                with contextlib.suppress(Exception):
                    prompt = last(body)
            parts.append(
                f"#{entry.get('seq')} {entry.get('method')} {entry.get('path')} "
                f"rule={entry.get('rule')} last prompt={prompt[:160]!r}"
            )
        return "\n".join(parts)

    def fail(self, message: str) -> None:
        raise AssertionError(f"{message}\n{self.diagnostics()}")

    def poll(self, predicate: Callable[[], Any], timeout: float, what: str) -> Any:
        """Poll ``predicate`` (bounded) until truthy; fail with the diagnostics."""
        try:
            return wait_until(predicate, timeout, what)
        except TimeoutError:
            self.fail(f"timed out after {timeout}s waiting for {what}")

    # ------------------------------------------------------------ screens
    def agent_screen(self) -> str:
        """The agent's screen as tether's emulator holds it (TETHER_SCREEN_DUMP)."""
        try:
            return self.dump.read_text()
        except OSError:
            return ""

    def wait_screen(self, pattern: str, timeout: float = 30.0, flags: int = 0) -> re.Match:
        rx = re.compile(pattern, flags)
        return self.poll(lambda: rx.search(self.agent_screen()), timeout, f"{pattern!r} on screen")

    def wait_tether_screen(self, pattern: str, timeout: float = 15.0) -> re.Match:
        rx = re.compile(pattern)
        return self.poll(lambda: rx.search(self.tm.capture()), timeout, f"{pattern!r} in tether")

    # ------------------------------------------------------------ input
    def type_line(self, text: str, enter_delay: float = 0.5) -> None:
        self.tm.type_line(text, enter_delay=enter_delay)

    def press(self, *keys: str) -> None:
        self.tm.send_keys(*keys)

    # ------------------------------------------------------------ events.jsonl
    def events(self) -> list[dict]:
        out: list[dict] = []
        try:
            lines = self.events_path.read_text(encoding="utf-8").splitlines()
        except OSError:
            return out
        for line in lines:
            with contextlib.suppress(ValueError):
                out.append(json.loads(line))
        return out

    def events_of(self, kind: str, **match: Any) -> list[dict]:
        return [
            e
            for e in self.events()
            if e.get("kind") == kind and all(e.get(k) == v for k, v in match.items())
        ]

    def wait_event(
        self,
        kind: str,
        timeout: float = 20.0,
        where: Callable[[dict], bool] | None = None,
        **match: Any,
    ) -> dict:
        def found() -> dict | None:
            for event in self.events_of(kind, **match):
                if where is None or where(event):
                    return event
            return None

        return self.poll(found, timeout, f"a {kind!r} event {match or ''}")

    def incidents(self) -> dict[int, dict]:
        """Incidents by number, with every ``incident_update`` folded in (sources, trigger,
        summary, audit, acknowledged)."""
        out: dict[int, dict] = {}
        for event in self.events():
            if event.get("kind") == "incident":
                out[int(event["number"])] = dict(event)
            elif event.get("kind") == "incident_update" and event.get("number") in out:
                current = out[int(event["number"])]
                current.update({k: v for k, v in event.items() if k not in ("kind", "at")})
        return out

    def incidents_of(self, type_: str) -> list[dict]:
        return [i for i in self.incidents().values() if i.get("type") == type_]

    def wait_incident(
        self,
        type_: str,
        timeout: float = 20.0,
        where: Callable[[dict], bool] | None = None,
        what: str = "",
    ) -> dict:
        def found() -> dict | None:
            for incident in self.incidents_of(type_):
                if where is None or where(incident):
                    return incident
            return None

        return self.poll(found, timeout, what or f"a {type_} incident")

    # ------------------------------------------------------------ the model's requests
    def main_requests(self) -> list[dict]:
        paths = {"claude": "/v1/messages", "codex": "/v1/responses"}
        path = paths.get(self.agent, "/v1/chat/completions")
        return [e for e in self.server.requests(path=path) if isinstance(e.get("body"), dict)]

    def last_seq(self) -> int:
        entries = self.server.requests()
        return int(entries[-1]["seq"]) if entries else 0

    def wait_request(
        self,
        predicate: Callable[[dict], bool],
        timeout: float = 30.0,
        after: int = 0,
        what: str = "a model request",
    ) -> dict:
        def found() -> dict | None:
            for entry in self.main_requests():
                if entry["seq"] > after and predicate(entry):
                    return entry
            return None

        return self.poll(found, timeout, what)

    # ------------------------------------------------------------ processes
    def tether_pid(self) -> int:
        return self.tm.agent_pid()

    def agent_pids(self) -> list[int]:
        """The agent process(es): tether's live children."""
        pids = [p for p in children(self.tether_pid()) if alive(p)]
        self.known_pids.update(pids)
        return pids

    def wait_agent_pid(self, timeout: float = 15.0, other_than: int | None = None) -> int:
        def found() -> int | None:
            pids = [p for p in self.agent_pids() if p != other_than]
            return pids[0] if pids else None

        return self.poll(found, timeout, "the agent process under tether")

    # ------------------------------------------------------------ shutdown
    def quit(self, timeout: float = 60.0) -> int:
        """F10, then y if tether asks (the agent runs); the exit status of `tether run`.
        One bound for both: on a busy machine the question can take longer than any
        fixed wait for it, and an unanswered question never ends."""
        self.press("F10")
        answered = False
        deadline = time.monotonic() + timeout
        while (status := self.tm.exit_status()) is None:
            if not answered and "Quit tether and hang up" in self.tm.capture():
                self.press("y")
                answered = True
            if time.monotonic() >= deadline:
                self.fail(f"tether still running {timeout}s after F10")
            time.sleep(0.2)
        return status

    def teardown(self) -> None:
        pane = self.tm.pane_pid() if self.tm.started else None
        pids = set(self.known_pids)
        if pane:
            pids.update(descendants(pane))
        self.tm.kill()
        kill_all(sorted(pids))


def start_tether(
    tm: TmuxSession,
    setup: Any,
    server: ServerProcess,
    agent: str,
    *agent_args: str,
    goal: str = GOAL,
    ready: str | None = None,
    ready_timeout: float = 45.0,
) -> TetherRun:
    """`tether init --goal` in the project, then `tether run AGENT [-- ARGS]` in tmux; wait
    until the agent's prompt is on tether's terminal pane (``ready``: a regex on it)."""
    import subprocess

    dump = setup.project.parent / "agent-screen.txt"
    env = tether_env(setup, dump)
    subprocess.run(
        [str(TETHER), "init", "--goal", goal, "--dir", str(setup.project)],
        env=env,
        check=True,
        capture_output=True,
        timeout=30,
    )
    argv = [str(TETHER), "run", agent, *(["--", *agent_args] if agent_args else [])]
    tm.start(argv, env, setup.project)
    run = TetherRun(tm, setup, server, dump, agent)
    if ready:
        run.wait_screen(ready, timeout=ready_timeout)
    return run


@pytest.fixture(name="tether_run")
def tether_run_fixture(
    tmux_session: Callable[..., TmuxSession],
) -> Iterator[Callable[..., TetherRun]]:
    """``tether_run(setup, server, "claude", *args, ready=regex)`` -> a started TetherRun;
    teardown kills its tmux server and every process that ran under it."""
    runs: list[TetherRun] = []

    def make(setup: Any, server: ServerProcess, agent: str, *args: str, **kw: Any) -> TetherRun:
        tm = tmux_session(WIDTH, HEIGHT)
        try:
            run = start_tether(tm, setup, server, agent, *args, **kw)
        except BaseException:
            if tm.started:
                pids = descendants(tm.pane_pid() or 0) if tm.pane_pid() else []
                tm.kill()
                kill_all(pids)
            raise
        runs.append(run)
        return run

    try:
        yield make
    finally:
        for run in runs:
            run.teardown()


class Timer:
    """Wall time of one scenario, printed at the end of the run (conftest's summary is not ours)."""

    results: dict[str, float] = {}

    def __init__(self, name: str) -> None:
        self.name = name

    def __enter__(self) -> Timer:
        self.t0 = time.monotonic()
        return self

    def __exit__(self, *exc: object) -> None:
        Timer.results[self.name] = time.monotonic() - self.t0
        print(f"\n[scenario time] {self.name}: {Timer.results[self.name]:.1f}s")


def request_text(entry: dict) -> str:
    """The whole request body as text (JSON-escaped newlines undone), for substring checks."""
    return json.dumps(entry.get("body"), ensure_ascii=False).replace("\\n", "\n")


def has_all_specifics(text: str) -> bool:
    return all(s in text for s in SPECIFICS)


__all__ = [
    "DECISION",
    "GOAL",
    "HEIGHT",
    "REPO",
    "SPECIFICS",
    "WIDTH",
    "TetherRun",
    "Timer",
    "has_all_specifics",
    "processes_mentioning",
    "request_text",
    "start_tether",
    "tether_run_fixture",
]
