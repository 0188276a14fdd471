"""Every key reaches the agent as the user's terminal sent it (issue 27).

The same raw byte logger runs directly in a tmux pane and as the agent of the real
tether app in another; tmux types the same keys into both, and the bytes tether's
agent read must be exactly the bytes the direct one read. The table is the issue's
(keys an input parser used to rewrite) and the keys that already worked.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.e2e.tmux import TmuxSession, wait_until

LOGGER = Path(__file__).with_name("byte_logger.py")
VENV_BIN = Path(sys.executable).parent
MARK = b"@@"

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")

# (what the user presses, the tmux send-keys arguments)
REWRITTEN_BEFORE = [
    ("Alt+Enter", ["M-Enter"]),
    ("Esc then :", ["Escape", ":"]),
    *((f"Alt+{c}", [f"M-{c}"]) for c in ".,/'[]<>`"),
    *((f"Alt+{d}", [f"M-{d}"]) for d in "0123456789"),
    ("Alt+b", ["M-b"]),
    ("Alt+f", ["M-f"]),
    ("Alt+Tab", ["M-Tab"]),
    ("Alt+Backspace", ["M-BSpace"]),
    ("Ctrl+H", ["C-h"]),
    ("Ctrl+Alt+a", ["C-M-a"]),
    ("Esc alone", ["Escape"]),
    ("vim: i hello Esc :q! typed fast", ["i", "hello", "Escape", ":q!"]),
    ("Alt+é (ESC and a UTF-8 character)", ["-H", "1b", "c3", "a9"]),
]
ALREADY_WORKED = [
    ("Alt+a", ["M-a"]),
    ("Alt+x", ["M-x"]),
    ("Alt+Shift+x", ["M-X"]),
    ("Up", ["Up"]),
    ("Shift+Up", ["S-Up"]),
    ("Ctrl+Left", ["C-Left"]),
    ("Alt+Right", ["M-Right"]),
    ("Ctrl+Shift+Right", ["C-S-Right"]),
    ("Home End", ["Home", "End"]),
    ("Insert Delete", ["IC", "DC"]),
    ("Ctrl+A Ctrl+E Ctrl+U Ctrl+W", ["C-a", "C-e", "C-u", "C-w"]),
    ("Ctrl+C", ["C-c"]),
    ("Ctrl+Z", ["C-z"]),
    ("Ctrl+\\", ["C-\\"]),
    ("Ctrl+Space", ["C-Space"]),
    ("F1 F2 F11", ["F1", "F2", "F11"]),
    ("Shift+F6 (not tether's F6)", ["S-F6"]),
    ("PageUp PageDown", ["PPage", "NPage"]),
    ("keypad", ["KP1", "KP5", "KP9", "KP/", "KP*", "KP-", "KP+", "KP.", "KPEnter"]),
    ("Tab Shift+Tab Enter Backspace Space", ["Tab", "BTab", "Enter", "BSpace", "Space"]),
    ("text", ["-l", "héllo wörld ✔ 👍"]),
]


def _env(home: Path) -> dict[str, str]:
    return {
        "PATH": os.pathsep.join([str(VENV_BIN), "/usr/bin", "/bin"]),
        "HOME": str(home),
        "TERM": "screen-256color",
        "LANG": "C.UTF-8",
        "TETHER_CONFIG_DIR": str(home / "tether-config"),
    }


class Pane:
    """One tmux session whose program is the byte logger (alone, or under tether)."""

    def __init__(self, session: TmuxSession, log: Path) -> None:
        self.session, self.log = session, log

    def bytes_for(self, keys: list[str]) -> bytes:
        """Press ``keys``, then the marker; the bytes the logger read in between."""
        return self._before_marker(lambda: self.session.send_keys(*keys), what=f"{keys}")

    def bytes_pasted(self, text: str) -> bytes:
        """Paste ``text`` as tmux does (bracketed if the pane's program asked), then type
        the marker; the bytes the logger read in between."""
        self.session.tmux("set-buffer", text)
        return self._before_marker(
            lambda: self.session.tmux("paste-buffer", "-p", "-t", self.session.target),
            what=f"the paste of {text!r}",
        )

    def _before_marker(self, act: Callable[[], object], *, what: str) -> bytes:
        """The bytes logged after ``act`` and before the marker typed after it. The wait
        reads only what came after ``act`` began: the log already ends with the marker
        of the test before."""
        start = self.log.stat().st_size if self.log.exists() else 0
        act()
        self.session.send_keys("-l", MARK.decode())

        def logged() -> bytes | None:
            data = self.log.read_bytes()[start:] if self.log.exists() else b""
            return data if data.endswith(MARK) else None

        return wait_until(logged, timeout=20, what=f"{what} then the marker in {self.log}")[
            : -len(MARK)
        ]


@pytest.fixture(scope="module")
def panes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Pane, Pane]]:
    yield from _panes(tmp_path_factory, "")


@pytest.fixture(scope="module")
def bracketing_panes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Pane, Pane]]:
    """The logger asks for bracketed paste (2004) and focus reports (1004)."""
    yield from _panes(tmp_path_factory, "2004;1004")


def _panes(tmp_path_factory: pytest.TempPathFactory, modes: str) -> Iterator[tuple[Pane, Pane]]:
    home = tmp_path_factory.mktemp("keys")
    work = home / "work"
    work.mkdir()
    direct_log, tether_log = home / "direct.log", home / "tether.log"
    logger = [sys.executable, str(LOGGER)]
    extra = [modes] if modes else []
    with (
        TmuxSession(width=120, height=30, name="direct") as direct,
        TmuxSession(width=160, height=40, name="tether") as under,
    ):
        direct.start([*logger, str(direct_log), *extra], env=_env(home), cwd=work)
        under.start(
            [str(VENV_BIN / "tether"), "run", "--", *logger, str(tether_log), *extra],
            env=_env(home),
            cwd=work,
        )
        direct.wait_for("LOGGER READY")
        under.wait_for("LOGGER READY")
        under.wait_for("f10 Quit")  # the app is up: its driver reads the keys
        yield Pane(direct, direct_log), Pane(under, tether_log)


@pytest.mark.parametrize(
    ("press", "keys"),
    REWRITTEN_BEFORE + ALREADY_WORKED,
    ids=[press for press, _ in REWRITTEN_BEFORE + ALREADY_WORKED],
)
def test_the_agent_reads_the_bytes_tmux_delivers(
    panes: tuple[Pane, Pane], press: str, keys: list[str]
) -> None:
    direct, under_tether = panes
    expected = direct.bytes_for(keys)
    assert expected, f"tmux sent nothing for {press}"
    assert under_tether.bytes_for(keys) == expected


def test_a_paste_reaches_the_agent_as_typed_text_when_it_did_not_ask_for_brackets(
    panes: tuple[Pane, Pane],
) -> None:
    direct, under_tether = (pane.bytes_pasted("one line\nanother line") for pane in panes)
    assert under_tether == direct == b"one line\ranother line"


def test_a_paste_is_bracketed_when_the_agent_asked_for_it(
    bracketing_panes: tuple[Pane, Pane],
) -> None:
    direct, under_tether = (
        pane.bytes_pasted("one line\nanother line") for pane in bracketing_panes
    )
    assert under_tether == direct == b"\x1b[200~one line\ranother line\x1b[201~"


def test_keys_reach_an_agent_that_asked_for_paste_and_focus_modes(
    bracketing_panes: tuple[Pane, Pane],
) -> None:
    direct, under_tether = bracketing_panes
    keys = ["M-Enter", "Escape", ":", "C-h", "F1"]
    assert under_tether.bytes_for(keys) == direct.bytes_for(keys)


def test_tethers_own_keys_stay_with_tether(panes: tuple[Pane, Pane]) -> None:
    direct, under_tether = panes
    assert direct.bytes_for(["F8"]) == b"\x1b[19~"
    assert under_tether.bytes_for(["F8"]) == b""  # F8: tether's checkpoint key
    under_tether.session.wait_for("Checkpoint #")


@pytest.fixture(scope="module")
def cursor_key_panes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Pane, Pane]]:
    """The logger asks for application cursor keys (DECCKM, as vim and less do)."""
    yield from _panes(tmp_path_factory, "1")


@pytest.mark.parametrize(
    "keys",
    [["Up", "Down", "Left", "Right"], ["Home", "End"], ["C-Left", "S-Up"], ["M-Up"]],
    ids=" ".join,
)
def test_arrows_reach_an_agent_in_application_cursor_mode_as_tmux_sends_them(
    cursor_key_panes: tuple[Pane, Pane], keys: list[str]
) -> None:
    """The user's terminal stays in normal cursor mode (ESC [ A); a terminal the agent
    asked for DECCKM sends ESC O A, and so must tether, as tmux does."""
    direct, under_tether = cursor_key_panes
    assert under_tether.bytes_for(keys) == direct.bytes_for(keys)
