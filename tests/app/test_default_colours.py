"""The agent pane in the user's own colours: `tether run -- bash` in a real tmux, read back
with its escapes (``capture-pane -e``), as a user's terminal receives them."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from tests.e2e.tmux import TmuxSession

TETHER = str(Path(sys.executable).with_name("tether"))


def test_uncoloured_text_is_in_the_users_default_colours_and_ansi_blue_stays_ansi(
    tmp_path, shell_env
):
    """Text the agent leaves uncoloured goes out as the terminal's default foreground and
    background (ESC[39m / ESC[49m, as tmux sends it), not as the theme's RGB."""
    env = {**shell_env, "TERM": "tmux-256color", "COLORTERM": "truecolor"}  # a colour terminal
    with TmuxSession(width=100, height=20) as tm:
        tm.start([TETHER, "run", "--", "bash", "--norc", "--noprofile"], env=env, cwd=tmp_path)
        tm.wait_for(r"no loss seen yet", timeout=30)
        tm.type_line(r"echo PLAIN-TEXT; printf '\e[34mBLUE\e[0m\n'")
        tm.wait_for(r"(?m)^BLUE", timeout=15)
        screen = tm.capture(ansi=True)
    line = next(
        row
        for row in screen.splitlines()
        if re.sub(r"\x1b\[[0-9;]*m", "", row).startswith("PLAIN-TEXT")
    )
    before_text = line[: line.index("PLAIN-TEXT")]
    colours = re.findall(r"\x1b\[([0-9;]*)m", before_text)
    assert all(not c or set(c.split(";")) <= {"0", "39", "49"} for c in colours), repr(line)
    assert "\x1b[34mBLUE" in screen
