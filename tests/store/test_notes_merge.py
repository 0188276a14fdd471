"""The merge behind the Notes pane's "Merge both": the user's text plus what the disk added."""

from __future__ import annotations

from supervisor.store.notes_merge import apply_edits, line_edits, lines_only_in, merge_keep_both

BASE = "# Notes\n\n## Done\n\n- a\n\n## Next step\n\nstart\n"


def test_lines_added_on_both_sides_are_all_kept_in_place():
    disk = BASE.replace("- a\n", "- a\n- from the agent\n")
    mine = BASE.replace("start\n", "start\nthen more, from the user\n")
    merged = merge_keep_both(BASE, disk, mine)
    assert merged == disk.replace("start\n", "start\nthen more, from the user\n")


def test_a_line_the_disk_replaced_keeps_the_old_and_the_new_version():
    disk = BASE.replace("start\n", "verify\n")  # `tether note next verify`
    mine = BASE.replace("- a\n", "- a\n- mine\n")
    merged = merge_keep_both(BASE, disk, mine).split("\n")
    assert "start" in merged and "verify" in merged and "- mine" in merged


def test_a_line_the_user_deleted_is_not_put_back():
    disk = BASE + "- appended by the agent\n"
    mine = BASE.replace("- a\n", "")
    merged = merge_keep_both(BASE, disk, mine)
    assert "- a\n" not in merged and merged.endswith("- appended by the agent\n")


def test_the_same_addition_on_both_sides_appears_once():
    both = BASE.replace("- a\n", "- a\n- same\n")
    assert merge_keep_both(BASE, both, both) == both


def test_line_edits_turn_one_text_into_the_other():
    for old, new in [
        (BASE, BASE + "tail"),
        (BASE, "x"),
        ("", BASE),
        (BASE, BASE.replace("## Done", "## Done!\nextra")),
        ("a\nb", "a\nb\n"),
    ]:
        assert apply_edits(old, line_edits(old, new)) == new


def test_counts_of_lines_only_on_one_side():
    assert lines_only_in(BASE + "x\ny\n", BASE) == 2
    assert lines_only_in(BASE, BASE) == 0
