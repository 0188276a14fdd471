"""Whether an agent's summarizer is told the pins before a compaction, per bundled profile."""

from __future__ import annotations

import dataclasses

from supervisor.config.keymap import Keymap
from supervisor.config.profiles import load_profile
from supervisor.rehydrate.summary_instructions import instructions_from_notes, reaches_summarizer
from supervisor.run import banner_text

NOTES = "## Decisions\n- DECISION: tokens live 15 minutes because mobile\n\n## Next step\nship\n"


def test_claude_code_is_told_the_pins_and_codex_is_not():
    assert reaches_summarizer(load_profile("claude"))  # PreCompact stdout and /compact ARGS
    # Codex 0.171.0: no PreCompact output reaches its prompt, and /compact takes no text
    codex = load_profile("codex")
    assert codex.compact_command == "/compact" and not reaches_summarizer(codex)


def test_a_compact_command_with_instructions_tells_any_agent():
    codex = load_profile("codex")
    told = dataclasses.replace(codex, compact_command="/compact {instructions}")
    assert reaches_summarizer(told)


def test_the_banner_says_when_the_summarizer_is_not_told():
    keys = Keymap()
    assert "is not told" in banner_text.compact_sent("sent", told=False)
    assert "re-sent after the fold" in banner_text.compact_sent("queued", told=False)
    assert "is told the pinned decisions" in banner_text.compact_sent("sent", told=True)
    assert "keeping the pinned" not in banner_text.compact_offer("80% used", keys, told=False)
    assert "keeping the pinned" in banner_text.compact_offer("80% used", keys, told=True)


def test_instructions_never_start_a_line_with_decision():
    text = instructions_from_notes(NOTES)
    assert "15 minutes" in text
    assert not any(line.upper().startswith("DECISION:") for line in text.splitlines())
