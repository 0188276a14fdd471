"""The banner after a dead tether: when it ran, its agent still running, and the key to end it."""

from __future__ import annotations

from supervisor.app import TetherApp
from supervisor.run.supervision import RunConfig
from supervisor.store.lock import process_start
from tests.conftest import wait_until
from tests.run.test_unclean_exit import _is_zombie, dead_tether  # noqa: F401 (fixture)
from widgets.loss_banner import LossBanner


async def test_the_banner_offers_f4_to_end_the_orphaned_agent(dead_tether, shell_env):  # noqa: F811
    work, agent = dead_tether
    app = TetherApp(RunConfig(argv=["bash", "--norc"], workdir=work, env=shell_env))
    async with app.run_test(size=(200, 30)) as pilot:
        banner = app.query_one(LossBanner)
        await wait_until(pilot, lambda: "uncleanly" in banner.text, what="the banner")
        assert banner.text.startswith("tether was stopped uncleanly (#1): ran 20")
        assert " UTC — " in banner.text  # when it started and when it was last alive
        assert f"its agent (pid {agent}) still runs: F4 end it — F6 rehydrate" in banner.text
        assert app.active_bindings["f4"].binding.action == "end_orphan"
        await pilot.press("f4")
        await wait_until(pilot, lambda: "was ended" in banner.text, what="the orphan ended")
        assert process_start(agent) is None or _is_zombie(agent)
