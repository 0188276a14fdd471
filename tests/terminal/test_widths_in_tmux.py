"""Emoji widths as the terminal draws them (issue 27): the same program's rows, run
directly in tmux and under tether in tmux, put the bar at the same column."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from tests.e2e.tmux import TmuxSession
from tests.terminal.test_outer_terminal import _legacy_width

VENV_BIN = Path(sys.executable).parent
pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")

SCRIPT = (
    "printf 'a\\342\\234\\224\\357\\270\\217\\033[20G|\\n'"  # ✔️ (VS16)
    "; printf 'b\\360\\237\\221\\215\\360\\237\\217\\275\\033[20G|\\n'"  # 👍🏽 (skin tone)
    "; printf 'c\\342\\232\\240\\357\\270\\217 x\\033[20G|\\n'"  # ⚠️
    "; printf 'PRINTED\\n'; exec sleep 600"
)


def _bars(screen: str) -> dict[str, int]:
    """The column (1-based, as tmux draws) of the bar on each row starting a, b or c."""
    bars = {}
    for line in screen.splitlines():
        line = line.lstrip()
        if line[:1] in ("a", "b", "c") and "|" in line:
            bars[line[0]] = _legacy_width(line[: line.index("|")]) + 1
    return bars


def _env(home: Path) -> dict[str, str]:
    return {
        "PATH": os.pathsep.join([str(VENV_BIN), "/usr/bin", "/bin"]),
        "HOME": str(home),
        "TERM": "screen-256color",
        "LANG": "C.UTF-8",
        "TETHER_CONFIG_DIR": str(home / "cfg"),
    }


@pytest.mark.parametrize("backend", ["ghostty", "avt"])
def test_the_bar_lands_where_the_program_put_it_as_in_tmux(tmp_path, backend):
    env = _env(tmp_path)
    with (
        TmuxSession(width=100, height=20, name="direct") as direct,
        TmuxSession(width=140, height=20, name="tether") as under,
    ):
        direct.start(["sh", "-c", SCRIPT], env=env, cwd=tmp_path)
        argv = [str(VENV_BIN / "tether"), "run", "--", "sh", "-c", SCRIPT]
        under.start(argv, {**env, "TETHER_EMULATOR": backend}, tmp_path)
        direct.wait_for("PRINTED")
        under.wait_for("PRINTED")
        assert _bars(direct.capture()) == {"a": 20, "b": 20, "c": 20}
        assert _bars(under.capture()) == {"a": 20, "b": 20, "c": 20}
