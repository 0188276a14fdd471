"""`DECISION:` capture on a real PTY: pinned once, whole, from its logical line.

(That nothing unechoed is pinned, `read -s`, is in tests/test_hostile_input.py.)
Each test runs a real child (bash, python) under a real supervision and reads
the notes and events it wrote.
"""

from __future__ import annotations

import asyncio
import sys

from supervisor.run.supervision import RunConfig, Supervision
from supervisor.store import notes
from supervisor.terminal.session import AgentSession

LONG = (
    "use short-lived access tokens and rotate them on every request because the "
    "mobile client cannot persist refresh tokens between launches"
)


def _supervise(tmp_path, argv: list[str], cols: int = 100, rows: int = 20):
    session = AgentSession(argv, cols=cols, rows=rows, cwd=str(tmp_path))
    supervision = Supervision(RunConfig(argv=argv, workdir=tmp_path), session)
    supervision.open()
    session.start()
    return session, supervision


async def _until(condition, what: str, tries: int = 500) -> None:
    for _ in range(tries):
        if condition():
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"never happened: {what}")


def _screen(session: AgentSession) -> str:
    return "\n".join(session.emulator.display())


def _decision_events(supervision: Supervision) -> list[dict]:
    events, _ = supervision.tether.recent_events(100)
    return [e for e in events if e["kind"] == "decision"]


async def test_a_printed_decision_wrapped_by_the_terminal_is_pinned_once_whole(tmp_path):
    script = f"print('DECISION: {LONG}'); input()"
    session, supervision = _supervise(tmp_path, [sys.executable, "-c", script], cols=50)
    tether = supervision.tether
    try:
        await _until(lambda: "launches" in _screen(session), "the wrapped line drawn")
        await _until(lambda: notes.pinned_decisions(tether.read_notes()), "a decision pinned")
        await asyncio.sleep(0.3)  # any fragment would be pinned in the same second
        session.send_input(b"\r")
        assert notes.pinned_decisions(tether.read_notes()) == [LONG]
        assert [e["source"] for e in _decision_events(supervision)] == ["screen"]
    finally:
        supervision.stop_agent()
        supervision.close()


async def test_a_decision_the_agent_wrapped_itself_is_joined(tmp_path):
    # Ink-style: the agent breaks the line and indents the rest under the text.
    first, rest = LONG[:60].rsplit(" ", 1)[0], LONG[len(LONG[:60].rsplit(" ", 1)[0]) + 1 :]
    body = f"⏺ DECISION: {first}\\n  {rest}\\n\\n⏺ Done."
    script = f"print('{body}'); input()"
    session, supervision = _supervise(tmp_path, [sys.executable, "-c", script], cols=80)
    tether = supervision.tether
    try:
        await _until(lambda: "Done." in _screen(session), "the message drawn")
        await _until(lambda: notes.pinned_decisions(tether.read_notes()), "a decision pinned")
        assert notes.pinned_decisions(tether.read_notes()) == [LONG]
    finally:
        supervision.stop_agent()
        supervision.close()


async def test_a_long_typed_decision_echoed_over_two_rows_is_pinned_once_as_typed(tmp_path):
    session, supervision = _supervise(tmp_path, [sys.executable, "-c", "input(); input()"], cols=60)
    tether = supervision.tether
    try:
        session.send_input(f"DECISION: {LONG}\r".encode())
        await _until(lambda: notes.pinned_decisions(tether.read_notes()), "the decision pinned")
        await asyncio.sleep(0.3)  # a fragment from the echo would follow within the second
        session.send_input(b"\r")
        assert notes.pinned_decisions(tether.read_notes()) == [LONG]
        assert [e["source"] for e in _decision_events(supervision)] == ["typed"]
    finally:
        supervision.stop_agent()
        supervision.close()
