"""A child's terminal modes end with it: the next child starts as in a new terminal.

Claude Code 2.1.332 and Codex draw on the alternate screen with mouse tracking and
bracketed paste on; killed, they switch none of it off. Real children in a real PTY,
killed with SIGKILL, as a crash does.
"""

from __future__ import annotations

import os
import signal
import sys

from supervisor.terminal.emulator import TerminalModes
from supervisor.terminal.keys import encode_paste
from supervisor.terminal.session import AgentSession
from tests.conftest import until

# Everything the dead child may leave on: alternate screen, bracketed paste, mouse (SGR),
# focus reports, application cursor keys and keypad, a hidden cursor, a scroll region,
# synchronized output, a bold pen, and a sequence cut in half by its death.
CRASHER = (
    "import sys, time; w = sys.stdout.write;"
    "w('shell line before\\r\\n');"
    "w('\\x1b[?1049h\\x1b[?2004h\\x1b[?1000h\\x1b[?1006h\\x1b[?1004h\\x1b[?1h\\x1b=\\x1b[?25l');"
    "w('\\x1b[2J\\x1b[H\\x1b[1;31mLAST FRAME\\x1b[0m of the dead agent\\x1b[3;1H> prompt');"
    "w('\\x1b[2;5r\\x1b[1m\\x1b[?2026h\\x1b[3'); sys.stdout.flush(); time.sleep(60)"
)
AFTER = "import sys; sys.stdout.write('second child'); sys.stdout.flush()"


async def kill_and_wait(session: AgentSession) -> None:
    os.kill(session.host.pid, signal.SIGKILL)
    await until(lambda: session.exit_status is not None, "the killed child to be reaped")


async def test_a_killed_childs_modes_end_with_it_and_its_last_frame_stays_in_view(tmp_path):
    session = AgentSession([sys.executable, "-c", CRASHER], cols=60, rows=8, cwd=str(tmp_path))
    session.start()
    emulator = session.emulator
    await until(lambda: emulator.modes.synchronized_output, "the crasher's last bytes")
    assert emulator.modes.alt_screen and emulator.modes.bracketed_paste
    await kill_and_wait(session)

    assert emulator.modes == TerminalModes()  # what a new terminal has
    assert encode_paste("a\nb", emulator.modes) == b"a\rb"  # no bracketed paste for the next
    screen = emulator.display()
    assert screen[0] == "LAST FRAME of the dead agent" and screen[2] == "> prompt"
    assert emulator.row(0)[0].style.bold  # drawn as it was, on the main screen
    assert emulator.cursor.y == 3 and emulator.cursor.visible  # under the frame
    history = [emulator.history_text(i).rstrip() for i in range(emulator.history_size)]
    assert history == ["shell line before"]  # the main screen's lines kept, not overwritten
    assert session.take_unpainted() >= set(range(8))  # the view repaints what tether moved


async def test_the_next_child_starts_on_a_blank_page_with_no_sequence_carried_over(tmp_path):
    session = AgentSession([sys.executable, "-c", CRASHER], cols=60, rows=8, cwd=str(tmp_path))
    session.start()
    await until(lambda: session.emulator.modes.synchronized_output, "the crasher's last bytes")
    await kill_and_wait(session)

    session.start(argv=[sys.executable, "-c", AFTER])
    emulator = session.emulator
    await until(lambda: "second child" in "\n".join(emulator.display()), "the second child")
    # The dead child's half "ESC [3" did not eat the new child's first letter, the scroll
    # region and pen are gone, and the new child drew at the top of a blank page.
    assert emulator.display()[0] == "second child"
    assert all(not row for row in emulator.display()[1:])
    assert not any(span.style.bold for span in emulator.row(0))
    history = [emulator.history_text(i).rstrip() for i in range(emulator.history_size)]
    assert history[-3:] == ["LAST FRAME of the dead agent", "", "> prompt"]
    await until(lambda: session.exit_status is not None, "the second child's exit")


async def test_a_stopped_child_leaves_no_modes_behind(tmp_path):
    session = AgentSession([sys.executable, "-c", CRASHER], cols=60, rows=8, cwd=str(tmp_path))
    session.start()
    await until(lambda: session.emulator.modes.synchronized_output, "the crasher's last bytes")
    session.stop()
    assert session.emulator.modes == TerminalModes()
    assert session.emulator.display()[0] == "LAST FRAME of the dead agent"
