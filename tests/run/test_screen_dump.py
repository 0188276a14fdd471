"""TETHER_SCREEN_DUMP: the opt-in debug dump of the agent's emulator text (e2e fidelity)."""

from __future__ import annotations

import asyncio
import sys

from supervisor.run.supervision import RunConfig, Supervision
from supervisor.terminal.session import AgentSession


async def test_tick_writes_the_agent_screen_when_asked_and_only_when_it_changed(
    tmp_path, monkeypatch
):
    dump = tmp_path / "screen.txt"
    monkeypatch.setenv("TETHER_SCREEN_DUMP", str(dump))
    argv = [sys.executable, "-c", "print('hello dump'); import time; time.sleep(30)"]
    session = AgentSession(argv, cols=40, rows=5, cwd=str(tmp_path))
    supervision = Supervision(RunConfig(argv=argv, workdir=tmp_path), session)
    supervision.open()
    session.start()
    try:
        for _ in range(200):
            supervision.tick()
            if dump.exists() and "hello dump" in dump.read_text():
                break
            await asyncio.sleep(0.02)
        lines = dump.read_text().split("\n")
        assert lines[0].rstrip() == "hello dump"
        assert len(lines) == 5 + 1  # five rows and the final newline
        dump.write_text("tampered")  # unchanged screen: tick leaves the file alone
        supervision.tick()
        assert dump.read_text() == "tampered"
    finally:
        supervision.stop_agent()
        supervision.close()


def test_without_the_variable_nothing_is_written(tmp_path, monkeypatch):
    monkeypatch.delenv("TETHER_SCREEN_DUMP", raising=False)
    session = AgentSession(["true"], cwd=str(tmp_path))
    supervision = Supervision(RunConfig(argv=["true"], workdir=tmp_path), session)
    supervision.open()
    try:
        supervision.tick()
        assert [p.name for p in tmp_path.iterdir()] == [".tether"]
    finally:
        supervision.close()


def test_without_the_variable_the_tick_does_not_even_make_the_screen_text(tmp_path, monkeypatch):
    """The idle tick runs four times a second: the whole screen's text for nobody was
    a share of tether's idle CPU."""
    monkeypatch.delenv("TETHER_SCREEN_DUMP", raising=False)
    session = AgentSession(["true"], cwd=str(tmp_path))
    supervision = Supervision(RunConfig(argv=["true"], workdir=tmp_path), session)
    made = []
    display = session.emulator.display
    monkeypatch.setattr(session.emulator, "display", lambda: made.append(1) or display())
    supervision.open()
    try:
        supervision.tick()
        supervision.tick()
        assert made == []
        monkeypatch.setenv("TETHER_SCREEN_DUMP", str(tmp_path / "screen.txt"))
        supervision.tick()
        assert made == [1]
    finally:
        supervision.close()
