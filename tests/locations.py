"""Where the tests find the checkout and its fixtures: one place, all inside the repository."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures"
# Recorded bytes of the real agents, their transcripts and hook logs (see the README there).
CAPTURES = FIXTURES / "captures"
# tmux's screens for each capture, the independent reference the replays are held against.
SCREENS = CAPTURES / "screens"
