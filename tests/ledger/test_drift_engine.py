"""The engine hears a drift alarm from the hook that raised it: banner and notification."""

from __future__ import annotations

import sys
from pathlib import Path

from supervisor.run.supervision import RunConfig, Supervision
from supervisor.terminal.session import AgentSession
from tests.conftest import until
from tests.ledger.conftest import claude_bash_failed, hook

AGENT = "import sys, time\nprint('? for shortcuts', flush=True)\ntime.sleep(60)\n"


async def test_a_third_failure_reaches_the_banner_and_the_notifications(
    repo: Path, monkeypatch
) -> None:
    monkeypatch.setenv("TETHER_CONFIG_DIR", str(repo.parent / "cfg"))
    argv = [sys.executable, "-c", AGENT]
    session = AgentSession(argv, cols=100, rows=20, cwd=str(repo))
    supervision = Supervision(
        RunConfig(argv=argv, workdir=repo, profile_name="claude", record=False), session
    )
    told: list[str] = []
    supervision.on_problem.append(told.append)
    supervision.open()
    session.start()
    try:
        for _ in range(3):  # as `tether hook PostToolUseFailure` records them
            hook(repo, claude_bash_failed("npm run build", "error TS2304: Cannot find name"))

        def ticked() -> bool:
            supervision.tick()
            notice = supervision.attention.state.notice
            return notice is not None and notice.source == "drift"

        await until(ticked, "the alarm in the banner")
        assert (
            "failed 3 times in a row: `npm run build`" in supervision.attention.state.banner_line()
        )
        assert any("failed 3 times in a row" in text for text in told)
    finally:
        supervision.stop_agent()
        supervision.close()
