"""Which events become markers in a recording, and what a player shows for them."""

from __future__ import annotations

from supervisor.run.landmarks import landmark


def test_incidents_injections_and_recall_checks_are_landmarks_and_the_rest_are_not():
    incident = {"kind": "incident", "number": 3, "type": "compaction", "trigger": "auto"}
    assert landmark(incident) == "compaction #3, auto"
    injection = {"kind": "injection", "reason": "rehydrate", "incident": 3}
    assert landmark(injection) == "injection: rehydrate (incident #3)"
    auto = {"kind": "auto_rehydrate", "hook_source": "compact", "incident": 3}
    assert landmark(auto) == "injection: payload from the compact hook (incident #3)"
    recall = {"kind": "recall_check", "result": "partial", "incident": 3}
    assert landmark(recall) == "recall check: partial (incident #3)"
    for kind in ("hook", "decision", "compaction", "agent_exit"):
        assert landmark({"kind": kind}) is None
