"""The judge's libraries (pint's unit registry above all: 0.2-0.7 s to build) are loaded on
a worker after the first frame, as the tokenizer is: the first compaction that brings a
summary is audited on the event loop (fusion), and it used to build them there, freezing
the screen at the moment the user most wants to see what happened."""

from __future__ import annotations

import sys

from supervisor.app import TetherApp
from supervisor.recognize.judge import libraries
from supervisor.run.supervision import RunConfig
from supervisor.store.tether_dir import init
from tests.conftest import wait_for_screen, wait_until

AGENT = [sys.executable, "-c", "print('ready>', flush=True); import time; time.sleep(30)"]


async def test_the_unit_registry_is_built_off_the_loop_after_start(tmp_path, shell_env):
    init(tmp_path, goal="keep sessions 30 days")
    libraries.units.cache_clear()  # as in a fresh process
    app = TetherApp(RunConfig(argv=AGENT, workdir=tmp_path, env=shell_env, side_pane=False))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for_screen(pilot, app, r"ready>")
        await wait_until(
            pilot, lambda: libraries.units.cache_info().currsize == 1, what="the unit registry"
        )
