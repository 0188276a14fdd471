"""The aider and Gemini CLI profiles' markers on screens their pinned versions drew in the e2e
runs (tests/fixtures/captures/aider0862-screens, gemini061-screens)."""

from __future__ import annotations

import pytest

from supervisor.config.profiles import load_profile
from tests.locations import CAPTURES


def rows(folder: str, name: str) -> list[str]:
    return (CAPTURES / folder / f"{name}.txt").read_text(encoding="utf-8").splitlines()


def kinds_on(profile: str, folder: str, name: str) -> set[str]:
    markers = load_profile(profile).markers.items()
    return {
        kind
        for row in rows(folder, name)
        for kind, patterns in markers
        if any(pattern.search(row) for pattern in patterns)
    }


@pytest.mark.parametrize(
    ("screen", "expected"),
    [
        # --verbose: the summarizer's thread prints its last line on the drawn prompt's row.
        ("fold", {"compaction_started", "compaction", "prompt_ready"}),
        ("clear", {"wipe", "prompt_ready"}),
    ],
)
def test_aider_markers_on_its_screens(screen: str, expected: set[str]) -> None:
    assert kinds_on("aider", "aider0862-screens", screen) == expected


@pytest.mark.parametrize(("screen", "trigger"), [("compress", None), ("auto", "auto")])
def test_gemini_compressions_on_its_screens_with_the_trigger_the_marker_tells(
    screen: str, trigger: str | None
) -> None:
    (pattern,) = load_profile("gemini").markers.compaction
    found = [m for row in rows("gemini061-screens", screen) if (m := pattern.search(row))]
    assert len(found) == 1
    assert (found[0].groupdict().get("auto") and "auto") == trigger
