"""The context meter from usage figures and screen percentages."""

from __future__ import annotations

from supervisor.recognize.context_meter import ContextMeter
from supervisor.recognize.observations import (
    COMPACTION,
    CONTEXT_LOW,
    CONTEXT_USED,
    HOOK,
    SCREEN,
    TRANSCRIPT,
    USAGE,
    Observation,
)


def test_usage_wins_and_a_compaction_leaves_it_marked_stale():
    meter = ContextMeter(window=200_000)
    assert meter.update(Observation(CONTEXT_LOW, SCREEN, 0.0, details={"percent": 30}))
    assert meter.describe() == "70% used"
    assert meter.update(Observation(USAGE, TRANSCRIPT, 1.0, details={"used": 50_000}))
    assert meter.describe() == "50,000/200,000 (25%)"
    meter.stale = True  # as the supervisor marks it on a new compaction incident
    assert meter.update(Observation(COMPACTION, TRANSCRIPT, 2.0))
    assert meter.describe().endswith(", stale since the compaction")


def test_other_observations_leave_the_meter_alone():
    meter = ContextMeter()
    assert not meter.update(Observation(USAGE, TRANSCRIPT, 0.0, details={"used": "many"}))
    assert meter.describe() == ""


def used(at: float, tokens: int) -> Observation:
    return Observation(USAGE, TRANSCRIPT, at, details={"used": tokens})


def row(at: float, percent: int) -> Observation:
    return Observation(CONTEXT_USED, SCREEN, at, details={"percent": percent})


def test_a_screen_row_read_again_never_overrides_a_fresher_report():
    meter = ContextMeter(window=200_000)
    meter.update(row(0.0, 21))  # "21% context used" stays on the screen
    meter.update(Observation(CONTEXT_USED, HOOK, 1.0, details={"percent": 80}))
    assert meter.describe() == "80% used"
    # the same row, read again later (a redraw, a restart's new detector): not news
    assert not meter.update(row(2.0, 21))
    assert meter.describe() == "80% used" and meter.used_percent() == 80


def test_a_screen_row_drawn_before_a_report_but_read_after_it_loses():
    meter = ContextMeter(window=200_000)
    meter.update(used(1.0, 160_000))
    assert not meter.update(row(0.5, 21))  # observed when it changed, before the report
    assert meter.describe() == "160,000/200,000 (80%)"


def test_a_screen_row_that_changes_after_a_report_wins_until_the_next_report():
    meter = ContextMeter(window=200_000)
    meter.update(used(1.0, 160_000))
    assert meter.update(row(2.0, 30))
    assert meter.describe() == "30% used" and meter.used_percent() == 30
    assert meter.update(used(3.0, 100_000))
    assert meter.describe() == "100,000/200,000 (50%)"


def test_a_reading_from_before_the_compaction_leaves_the_meter_stale():
    meter = ContextMeter(window=200_000)
    meter.update(used(1.0, 150_000))
    meter.update(Observation(COMPACTION, SCREEN, 5.0))
    meter.stale = True  # as the supervisor marks it on the new incident
    meter.update(used(4.0, 180_000))  # a late transcript line from before the fold
    assert meter.describe() == "180,000/200,000 (90%), stale since the compaction"
    meter.update(used(6.0, 20_000))
    assert not meter.stale and meter.describe() == "20,000/200,000 (10%)"


def test_a_usage_line_read_late_is_as_old_as_its_entry():
    meter = ContextMeter(window=200_000)
    meter.update(row(2.0, 30))  # drawn after the agent wrote the usage line below
    late = Observation(USAGE, TRANSCRIPT, 3.0, details={"used": 160_000, "entry_at": 1.0})
    assert not meter.update(late)
    assert meter.describe() == "30% used"


def test_after_a_clear_the_count_is_marked_stale_until_a_newer_reading() -> None:
    """Issue 26, item 7: after /clear Claude's meter kept the old count with no mark."""
    from supervisor.recognize.context_meter import ContextMeter
    from supervisor.recognize.observations import HOOK, TRANSCRIPT, USAGE, WIPE, Observation

    meter = ContextMeter(window=200_000)
    meter.update(Observation(USAGE, TRANSCRIPT, 10.0, details={"used": 120_000}))
    assert meter.describe() == "120,000/200,000 (60%)"
    meter.update(Observation(WIPE, HOOK, 20.0, details={"channel": "SessionStart"}))
    assert meter.stale and meter.describe().endswith("stale since the clear")
    meter.update(Observation(USAGE, TRANSCRIPT, 30.0, details={"used": 9_000}))
    assert not meter.stale and meter.describe() == "9,000/200,000 (4%)"


def test_an_old_clear_read_late_does_not_make_a_fresher_count_stale() -> None:
    from supervisor.recognize.context_meter import ContextMeter
    from supervisor.recognize.observations import TRANSCRIPT, USAGE, WIPE, Observation

    meter = ContextMeter(window=200_000)
    meter.update(Observation(USAGE, TRANSCRIPT, 30.0, details={"used": 9_000}))
    meter.update(Observation(WIPE, TRANSCRIPT, 31.0, details={"entry_at": 20.0}))
    assert not meter.stale
