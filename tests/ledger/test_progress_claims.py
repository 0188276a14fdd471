"""The Progress tab marks a Done claim that no current passing run in the ledger backs."""

from __future__ import annotations

from pathlib import Path

from supervisor.rehydrate.evidence_section import check_claims
from supervisor.store import invariant
from supervisor.store.tether_dir import TetherDir
from tests.conftest import wait_until
from tests.ledger.conftest import claude_bash, claude_bash_failed, hook
from tests.pane_screens import PaneHarness
from widgets.side_pane.progress_pane import ProgressPane, render_progress


async def test_all_tests_pass_written_while_the_last_run_failed_is_shown_unverified(
    repo: Path,
) -> None:
    tether = TetherDir.at(repo)
    hook(repo, claude_bash("pytest -q", "3 passed in 0.1s"))
    (repo / "calc.py").write_text("changed\n")
    hook(repo, claude_bash_failed("pytest -q", "1 failed, 2 passed in 0.1s"))
    tether.add_note("done", "all tests pass")
    app = PaneHarness(tether, "progress", watch=True)
    async with app.run_test(size=(90, 40)) as pilot:
        pane = app.query_one(ProgressPane)
        await wait_until(pilot, lambda: pane.claims, what="the claims checked")
        text = str(pane.render())
        assert "✗ unverified: all tests pass" in text
        assert "no current passing tests run on this checkout" in text
        hook(repo, claude_bash("pytest -q", "3 passed in 0.1s"))  # the agent runs it again
        await wait_until(
            pilot, lambda: pane.claims and not pane.claims[0].unverified, what="the pass seen"
        )
        assert "✓ verified: all tests pass" in str(pane.render())


def test_without_a_ledger_there_is_nothing_to_check_a_claim_against(repo: Path) -> None:
    assert check_claims(repo / ".tether", repo, ["all tests pass"]) is None
    text = render_progress(None, invariant.check(TetherDir.at(repo)), None).plain
    assert "Claims" not in text and "unverified" not in text
