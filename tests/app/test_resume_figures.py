"""Claude Code's SessionStart on resume/fork says what going on costs: tether shows it."""

from __future__ import annotations

from supervisor.agents.resume_figures import resume_figures
from widgets.side_pane.event_words import describe

RESUME = {
    "session_id": "59d7",
    "hook_event_name": "SessionStart",
    "source": "resume",
    "seconds_since_last_response": 2520,
    "context_tokens": 180000,
    "prompt_cache_likely_expired": True,
    "estimated_cache_write_usd": 0.54,
}


def test_the_figures_in_words() -> None:
    assert resume_figures(RESUME) == (
        "last reply 42 min ago · 180,000 tokens of context · prompt cache likely expired · "
        "re-caching ≈ $0.54"
    )


def test_a_start_without_them_says_nothing_and_bad_values_are_left_out() -> None:
    assert resume_figures({"source": "startup"}) is None
    odd = {
        "context_tokens": "lots",
        "seconds_since_last_response": -3,
        "estimated_cache_write_usd": True,
    }
    assert resume_figures(odd) is None


def test_the_events_tab_shows_them_on_the_resume_hooks_row() -> None:
    row = describe(
        {
            "at": "2026-12-01T22:00:00Z",
            "kind": "hook",
            "source": "hook",
            "event": "SessionStart",
            "payload": RESUME,
        }
    )
    assert "SessionStart (resume): last reply 42 min ago" in row.what
    assert row.tone == "warning"
    plain = describe(
        {
            "at": "2026-12-01T22:00:00Z",
            "kind": "hook",
            "source": "hook",
            "event": "SessionStart",
            "payload": {"source": "startup"},
        }
    )
    assert plain.tone == "quiet"
