"""What the agent's summarizer is told to keep, before a compaction folds the conversation.

Claude Code appends a PreCompact hook's plain stdout to its compaction prompt as
``Additional Instructions:`` (and `/compact <instructions>` does the same by
hand), so the specifics that a summary of a summary sheds first — the pinned
decisions' values and reasons, the rejected approaches, the next step — are
named to the summarizer itself. The same text is echoed on the agent's screen
and in its later requests, so it is short, and no line of it starts with
``DECISION:`` (tether would pin its own echo).

Codex (0.171.0) hears neither. Its PreCompact hook may answer only ``continue``,
``stopReason``, ``systemMessage`` and ``suppressOutput`` (``codex-rs/hooks`` schema
``pre-compact.command.output``; plain stdout is dropped), and its compaction prompt is
its own fixed text (or the launch-time ``compact_prompt`` setting); ``/compact`` takes
no arguments: ``/compact <text>`` goes to the model as an ordinary prompt. So for
Codex the pins are not kept by the fold but re-sent after it
(tests/e2e/test_closed_loop.py proves both with the real binary).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from supervisor.store import notes

if TYPE_CHECKING:
    from supervisor.config.profiles import Profile
    from supervisor.rehydrate.live_notes import LiveNotes

REJECTED_KEPT = 5  # the newest rejected approaches named
ITEM_CHARS = 300  # a rejected approach or the next step, cut to this
_DECISION_WORD = re.compile(r"DECISION:", re.IGNORECASE)


def _one_line(text: str, limit: int | None = None) -> str:
    line = " ".join(notes.clean_text(text).split())
    line = _DECISION_WORD.sub("decision -", line)
    if limit is not None and len(line) > limit:
        line = line[: limit - 1] + "…"
    return line


def instructions_from_notes(notes_text: str) -> str:
    """The instructions for notes.md's text, or "" when there is nothing to keep."""
    return instructions_from_document(notes.Document.parse(notes_text))


def instructions_from_document(document: notes.Document) -> str:
    """:func:`instructions_from_notes` of notes already parsed (megabytes parse slowly)."""
    decisions = notes.decisions_of(document)
    rejected_section = document.find("Rejected approaches")
    rejected = notes.section_items(rejected_section.body) if rejected_section else []
    next_section = document.find("Next step")
    next_step = re.sub(r"<!--.*?-->", "", next_section.body, flags=re.S) if next_section else ""
    if not decisions and not rejected and not next_step.strip():
        return ""
    lines = [
        "tether keeps this project's state in .tether/notes.md. In the summary, keep it whole:"
    ]
    if decisions:
        lines.append("Pinned decisions, copied word for word with their values and reasons:")
        lines += [f"{n}. {_one_line(d)}" for n, d in enumerate(decisions, start=1)]
    if rejected:
        kept = [_one_line(item, ITEM_CHARS) for item in rejected[-REJECTED_KEPT:]]
        lines.append("Rejected approaches (say they were rejected): " + "; ".join(kept))
    if next_step.strip():
        lines.append("Next step: " + _one_line(next_step, ITEM_CHARS))
    return "\n".join(lines)


def instructions(live: LiveNotes) -> str:
    """The instructions for the live notes (as every reader parses them: sanitized first);
    "" when there are none or notes.md is unreadable."""
    parsed = live.current()
    return instructions_from_document(parsed.notes) if parsed.error is None else ""


def reaches_summarizer(profile: Profile) -> bool:
    """Whether the agent's summarizer is told the pins before a compaction: through its
    compaction command's ``{instructions}`` or a PreCompact hook whose stdout joins the
    compaction prompt (Claude Code's). Codex has neither, so tether only re-sends after."""
    return "{instructions}" in profile.compact_command or "claude_hooks" in profile.integrations
