"""Focus reports from the user's terminal reach the agent only if it asked for them (1004),
as the raw-input driver hands them to the agent's view (issue 27)."""

from __future__ import annotations

import sys

import pytest

from supervisor.app import TetherApp
from supervisor.run.supervision import RunConfig
from tests.conftest import wait_for_screen
from widgets.terminal_view import TerminalView

# Prints each read as hex, one line each; asks for focus reports when told to.
KEYLOGGER = (
    "import os, sys, tty\n"
    "tty.setraw(0)\n"
    "if sys.argv[1] == 'on': os.write(1, b'\\x1b[?1004h')\n"
    "print('ready', end='\\r\\n', flush=True)\n"
    "while True:\n"
    "    print(os.read(0, 64).hex(), end='\\r\\n', flush=True)\n"
)


@pytest.mark.parametrize("asked", [True, False])
async def test_a_focus_report_reaches_an_agent_that_asked(tmp_path, shell_env, asked):
    argv = [sys.executable, "-c", KEYLOGGER, "on" if asked else "off"]
    config = RunConfig(argv=argv, workdir=tmp_path, env=shell_env, side_pane=False)
    app = TetherApp(config)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for_screen(pilot, app, r"^ready$")
        view = app.query_one(TerminalView)
        view.post_message(TerminalView.FocusReported(False))
        view.post_message(TerminalView.Typed(b"x"))  # a key after it, to know it was handled
        screen = await wait_for_screen(pilot, app, r"78$")
        assert ("1b5b4f" in screen) is asked  # CSI O: the terminal lost the focus
