"""The user's terminal's real cursor sits at the agent's cursor, in the shape the agent
asked for, while the agent has the keys (issue 27); hidden when it has not."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.e2e.tmux import TmuxSession, wait_until
from tests.terminal.test_widths_in_tmux import VENV_BIN, _env

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")

# "hello", the cursor to row 3, column 7, a steady bar (DECSCUSR 6).
SCRIPT = "printf 'hello\\033[3;7H\\033[6 q'; exec sleep 600"


def _cursor(session: TmuxSession) -> tuple[int, int, bool]:
    x, y, shown = (
        session.tmux(
            "display", "-p", "-t", session.target, "#{cursor_x},#{cursor_y},#{cursor_flag}"
        )
        .strip()
        .split(",")
    )
    return int(x), int(y), shown == "1"


def test_the_real_cursor_is_at_the_agents_in_its_shape(tmp_path: Path) -> None:
    output = tmp_path / "tether-output.bin"
    with (
        TmuxSession(width=100, height=20, name="direct") as direct,
        TmuxSession(width=140, height=20, name="tether") as under,
    ):
        direct.start(["sh", "-c", SCRIPT], env=_env(tmp_path), cwd=tmp_path)
        under.start(
            [str(VENV_BIN / "tether"), "run", "--", "sh", "-c", SCRIPT], _env(tmp_path), tmp_path
        )
        under.record(output)
        direct.wait_for("hello")
        x, y, shown = _cursor(direct)
        assert (x, y, shown) == (6, 2, True)
        # The agent's view starts one row down (the banner's row), at column 0.
        wait_until(lambda: _cursor(under) == (x, y + 1, True), what="the cursor at hello's")
        assert b"\x1b[6 q\x1b[?25h" in output.read_bytes()  # the shape, as the agent asked
        under.send_keys("F9")  # the side pane takes the keys: the agent's cursor goes
        wait_until(lambda: not _cursor(under)[2], what="the cursor hidden")
        under.send_keys("F9")
        wait_until(lambda: _cursor(under) == (x, y + 1, True), what="the cursor back")


def test_quitting_gives_the_shell_its_cursor_back_where_it_was(tmp_path: Path) -> None:
    """After F10 the shell's next line lands under what it printed before tether, with its
    cursor shown: the agent's cursor is not carried onto the user's own screen."""
    tether = str(VENV_BIN / "tether")
    shell = (
        f"printf 'BEFORE\\n'; {tether} run -- sh -c \"{SCRIPT}\"; printf 'AFTER'; exec sleep 600"
    )
    with TmuxSession(width=140, height=20, name="quit") as session:
        session.start(["sh", "-c", shell], _env(tmp_path), tmp_path)
        session.wait_for("hello")
        session.send_keys("F10")
        session.wait_for(r"Quit \(y\)")
        session.send_keys("y")
        session.wait_for("AFTER")
        assert session.capture().splitlines()[:2] == ["BEFORE", "AFTER"]
        assert _cursor(session) == (len("AFTER"), 1, True)
