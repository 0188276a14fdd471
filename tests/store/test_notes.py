"""notes.md and task.md sections: lossless, and edits touch only their own section."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from supervisor.store.notes import (
    Document,
    add_decision,
    apply_note,
    pinned_decisions,
    section_items,
)
from supervisor.store.tether_dir import NOTES_TEMPLATE

HAND_WRITTEN = (
    "Free text before any heading, with trailing spaces   \n"
    "\n"
    "# Notes\n"
    "## Phase  \n"
    "building the parser\t\n"
    "\n"
    "## Decisions\n"
    "- [2026-05-01T10:00:00.000Z] keep pyte, because 40 MB/s is enough\n"
    "* hand-written decision\n"
    "  with a continuation line\n"
    "\n"
    "## My own section ##\n"
    "```python\n"
    "## not a heading\n"
    "x = 1\n"
    "```\n"
    "~~~~\n"
    "## still not a heading\n"
    "```\n"
    "## nor this\n"
    "~~~~\n"
    "### a sub-heading stays inside\n"
    "\r\n"
    "## Done\n"
    "- one\n"
    "no newline at the end"
)


def test_hand_written_markdown_round_trips_byte_for_byte():
    document = Document.parse(HAND_WRITTEN)
    assert document.render() == HAND_WRITTEN
    assert document.titles() == ["Phase", "Decisions", "My own section", "Done"]


def test_headings_inside_code_fences_are_not_sections():
    own = Document.parse(HAND_WRITTEN).find("my own section")
    assert own is not None
    assert "## not a heading" in own.body
    assert "## still not a heading" in own.body and "## nor this" in own.body


@settings(max_examples=300)
@given(st.text(alphabet=st.sampled_from(list("#`~ -*\n\r\tab1DECISION:é")), max_size=200))
def test_any_text_round_trips(text):
    assert Document.parse(text).render() == text


def test_appending_a_decision_changes_only_the_decisions_section():
    before = Document.parse(HAND_WRITTEN)
    after_text = apply_note(HAND_WRITTEN, "decision", "use sqlite: 3 ms per write", "T1")
    after = Document.parse(after_text)
    assert len(after.sections) == len(before.sections)
    for old, new in zip(before.sections, after.sections, strict=True):
        if old.title == "Decisions":
            assert new.body == old.body.rstrip("\n") + "\n- [T1] use sqlite: 3 ms per write\n\n"
        else:
            assert new.render() == old.render()


def test_decision_is_pinned_without_its_timestamp():
    text = apply_note(NOTES_TEMPLATE, "decision", "port 8443, not 443", "2026-05-01T10:00:00.000Z")
    assert pinned_decisions(text) == ["port 8443, not 443"]
    assert "- [2026-05-01T10:00:00.000Z] port 8443, not 443\n" in text


def test_hand_written_decisions_are_pinned_verbatim():
    assert pinned_decisions(HAND_WRITTEN) == [
        "keep pyte, because 40 MB/s is enough",
        "hand-written decision\nwith a continuation line",
    ]


def test_the_same_decision_is_pinned_once():
    text, added = add_decision(NOTES_TEMPLATE, "use X", "2026-05-01T10:00:00.000Z")
    again, added_again = add_decision(text, "use X", "2026-05-01T11:00:00.000Z")
    assert added and not added_again and again == text


def test_phase_and_next_step_replace_their_section():
    text = apply_note(NOTES_TEMPLATE, "next", "write the parser", "T")
    text = apply_note(text, "next", "test the parser", "T")
    text = apply_note(text, "phase", "testing", "T")
    document = Document.parse(text)
    assert document.find("next").body.strip() == "test the parser"
    assert document.find("phase").body.strip() == "testing"
    assert "write the parser" not in text


def test_other_sections_get_items_and_unknown_sections_are_created_at_the_end():
    text = apply_note(NOTES_TEMPLATE, "done", "parser", "T")
    text = apply_note(text, "done", "two\nlines", "T")
    text = apply_note(text, "Open questions", "why 3?", "T")
    document = Document.parse(text)
    assert section_items(document.find("done").body) == ["parser", "two\nlines"]
    assert document.titles()[-1] == "Open questions"
    assert section_items(document.sections[-1].body) == ["why 3?"]
    assert text.startswith(NOTES_TEMPLATE.split("## Done")[0])
