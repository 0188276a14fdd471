"""The context meter from usage figures and screen percentages."""

from __future__ import annotations

from supervisor.recognize.context_meter import ContextMeter
from supervisor.recognize.observations import (
    COMPACTION,
    CONTEXT_LOW,
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
