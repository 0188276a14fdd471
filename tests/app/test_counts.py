"""What each count counts: compactions of this run, incident numbers across runs, triggers."""

from __future__ import annotations

import json

from supervisor.store.tether_dir import TetherDir
from tests.conftest import wait_for_screen, wait_until
from tests.rehydrate.test_rehydrate_flow import login_app


async def test_an_automatic_compaction_after_earlier_runs_is_counted_and_numbered_truly(
    tmp_path, shell_env
):
    app = login_app(tmp_path, shell_env, auto_compact="1")
    tether = TetherDir.at(tmp_path)
    for _ in range(3):  # three incidents of earlier runs
        tether.record_incident("compaction", "fusion", trigger="manual")
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_for_screen(pilot, app, r"Understood: I will keep my state")  # initial brief
        await wait_until(pilot, lambda: app.status_bar.compactions >= 1, what="the compaction")
        await wait_for_screen(pilot, app, r"summary kept \(auto\)")
        rendered = str(app.status_bar.render())
        assert "compactions 1 this run" in rendered
        assert "incidents 4 in all" in rendered  # incident #4: numbered across runs
    events = [json.loads(line) for line in tether.events.read_text().splitlines()]
    incident = [e for e in events if e["kind"] == "incident"][-1]
    assert incident["number"] == 4 and incident["trigger"] == "auto"  # the demo printed (auto)
