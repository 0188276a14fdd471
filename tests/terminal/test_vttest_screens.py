"""vttest 2.7's screens for the pre-filter's gaps (issue 27), under the real tether, on
both backends: menu 1's "cursor-control characters inside ESC sequences" (was a trail of
C's) and "leading zeros in ESC sequences" (a seven-digit 0000001 became 99999)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from tests.e2e.tmux import TmuxSession, wait_until

VENV_BIN = Path(sys.executable).parent
pytestmark = pytest.mark.skipif(
    shutil.which("vttest") is None or shutil.which("tmux") is None, reason="needs vttest, tmux"
)


@pytest.mark.parametrize("backend", ["ghostty", "avt"])
def test_vttest_menu_1_control_characters_and_leading_zeros(tmp_path: Path, backend: str):
    dump = tmp_path / "screen.txt"
    env = {
        "PATH": os.pathsep.join([str(VENV_BIN), "/usr/bin", "/bin"]),
        "HOME": str(tmp_path),
        "TERM": "screen",
        "LANG": "C.UTF-8",
        "TETHER_CONFIG_DIR": str(tmp_path / "cfg"),
        "TETHER_EMULATOR": backend,
        "TETHER_SCREEN_DUMP": str(dump),
    }

    def screen() -> str:
        return dump.read_text() if dump.exists() else ""

    # 80 x 27: the side pane steps aside, and the agent's view is vttest's 80 x 24.
    with TmuxSession(80, 27, "vttest") as tm:
        tm.start([str(VENV_BIN / "tether"), "run", "--", "vttest"], env, tmp_path)
        wait_until(lambda: "Enter choice number" in screen(), what="vttest's menu")
        tm.send_text("1")
        tm.send_keys("Enter")
        for title in ("inside ESC sequences", "leading zeros in ESC sequences"):
            while title not in screen():
                shown = screen()
                tm.send_keys("Enter")
                wait_until(lambda s=shown: screen() != s, what=f"the screen after {title!r}")
            if title.startswith("inside"):
                wait_until(lambda: screen().count("A B C D E F G H I") == 4, what="four lines")
                assert "CC" not in screen()
            else:
                wait_until(lambda: "\nThis is a correct sentence" in screen(), what="sentence")
