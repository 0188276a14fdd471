"""`DECISION:` capture on a real PTY: pinned once, whole, from its logical line.

(That nothing unechoed is pinned, `read -s`, is in tests/test_hostile_input.py.)
Each test runs a real child (bash, python) under a real supervision and reads
the notes and events it wrote.
"""

from __future__ import annotations

import asyncio
import sys
from contextlib import contextmanager

from supervisor.run.supervision import RunConfig, Supervision
from supervisor.store import notes
from supervisor.terminal.session import AgentSession
from tests.conftest import screen_text, until
from tests.store_records import recent_events

LONG = (
    "use short-lived access tokens and rotate them on every request because the "
    "mobile client cannot persist refresh tokens between launches"
)


@contextmanager
def _supervised(tmp_path, argv: list[str], cols: int):
    """A real child in a real PTY under a supervision, its screen read on this loop; the
    agent is stopped and the supervision closed at the end, whatever the test found."""
    session = AgentSession(argv, cols=cols, rows=20, cwd=str(tmp_path))
    supervision = Supervision(RunConfig(argv=argv, workdir=tmp_path), session)
    supervision.open()
    session.start()
    try:
        yield session, supervision
    finally:
        supervision.stop_agent()
        supervision.close()


def _decision_events(supervision: Supervision) -> list[dict]:
    events, _ = recent_events(supervision.tether, 100)
    return [e for e in events if e["kind"] == "decision"]


async def test_a_printed_decision_wrapped_by_the_terminal_is_pinned_once_whole(tmp_path):
    script = f"print('DECISION: {LONG}'); input()"
    with _supervised(tmp_path, [sys.executable, "-c", script], cols=50) as (session, supervision):
        tether = supervision.tether
        await until(lambda: "launches" in screen_text(session), "the wrapped line drawn")
        await until(lambda: notes.pinned_decisions(tether.read_notes()), "a decision pinned")
        await asyncio.sleep(0.3)  # any fragment would be pinned in the same second
        session.send_input(b"\r")
        assert notes.pinned_decisions(tether.read_notes()) == [LONG]
        assert [e["source"] for e in _decision_events(supervision)] == ["screen"]


async def test_a_decision_the_agent_wrapped_itself_is_joined(tmp_path):
    # Ink-style: the agent breaks the line and indents the rest under the text.
    first, rest = LONG[:60].rsplit(" ", 1)[0], LONG[len(LONG[:60].rsplit(" ", 1)[0]) + 1 :]
    body = f"⏺ DECISION: {first}\\n  {rest}\\n\\n⏺ Done."
    script = f"print('{body}'); input()"
    with _supervised(tmp_path, [sys.executable, "-c", script], cols=80) as (session, supervision):
        tether = supervision.tether
        await until(lambda: "Done." in screen_text(session), "the message drawn")
        await until(lambda: notes.pinned_decisions(tether.read_notes()), "a decision pinned")
        assert notes.pinned_decisions(tether.read_notes()) == [LONG]


async def test_a_long_typed_decision_echoed_over_two_rows_is_pinned_once_as_typed(tmp_path):
    argv = [sys.executable, "-c", "input(); input()"]
    with _supervised(tmp_path, argv, cols=60) as (session, supervision):
        tether = supervision.tether
        session.send_input(f"DECISION: {LONG}\r".encode())
        await until(lambda: notes.pinned_decisions(tether.read_notes()), "the decision pinned")
        await asyncio.sleep(0.3)  # a fragment from the echo would follow within the second
        session.send_input(b"\r")
        assert notes.pinned_decisions(tether.read_notes()) == [LONG]
        assert [e["source"] for e in _decision_events(supervision)] == ["typed"]
