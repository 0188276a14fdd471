"""tether's keys come from keys.toml through Textual's keymap: the user's key works, and the
default it replaced goes to the agent."""

from __future__ import annotations

import sys

from supervisor.app import TetherApp
from supervisor.config.keymap import Keymap
from supervisor.run.supervision import RunConfig
from supervisor.store import checkpoints
from tests.conftest import wait_for_screen, wait_until

# Prints each key it reads as hex, one line each.
KEYLOGGER = (
    "import os, sys, tty\n"
    "tty.setraw(0)\n"
    "print('ready', end='\\r\\n', flush=True)\n"
    "while True:\n"
    "    print(os.read(0, 64).hex(), end='\\r\\n', flush=True)\n"
)


async def test_a_configured_key_replaces_the_default_which_reaches_the_agent(tmp_path, shell_env):
    config = RunConfig(
        argv=[sys.executable, "-c", KEYLOGGER],
        workdir=tmp_path,
        env=shell_env,
        side_pane=False,
        keymap=Keymap(checkpoint="f11"),
    )
    app = TetherApp(config)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for_screen(pilot, app, r"^ready$")
        bound = {key for key, active in app.active_bindings.items() if active.node is app}
        assert bound == {"f3", "f6", "f7", "f9", "f10", "f11", "f12"}
        await pilot.press("f8")  # no longer tether's: the agent gets xterm's F8
        await wait_for_screen(pilot, app, r"^1b5b31397e$")
        await pilot.press("f11")
        tether = app.supervision.tether
        await wait_until(pilot, lambda: checkpoints.list_seqs(tether), what="the checkpoint")
        assert checkpoints.load(tether, checkpoints.latest_seq(tether)).reason == "manual (key)"
