"""The merge behind the Notes pane's "Merge both": the user's text plus what the disk added."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from supervisor.store import notes_merge
from supervisor.store.notes_merge import apply_edits, line_edits, lines_only_in, merge_additions


def merge_keep_both(base: str, disk: str, mine: str) -> str:
    """``mine`` plus the lines the disk added since ``base``, as the Notes pane merges them."""
    return apply_edits(mine, merge_additions(base, disk, mine))


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


# -- repeated lines: difflib is quadratic on them, so it only sees a bounded middle --------

_LINES = st.lists(st.sampled_from(["- a", "- b", "", "## Done", "x" * 3]), max_size=40)


@settings(max_examples=300, deadline=None)
@given(old=_LINES, new=_LINES)
def test_the_edits_turn_any_text_into_any_other(old, new):
    current, target = "\n".join(old), "\n".join(new)
    assert apply_edits(current, line_edits(current, target)) == target


@settings(max_examples=200, deadline=None)
@given(
    old=_LINES,
    added=st.lists(st.sampled_from(["+ new", "+ other"]), max_size=10),
    at=st.integers(min_value=0, max_value=40),
)
def test_lines_only_in_counts_exactly_the_lines_another_text_added(old, added, at):
    at = min(at, len(old))
    new = old[:at] + added + old[at:]
    left, right = "".join(f"{line}\n" for line in old), "".join(f"{line}\n" for line in new)
    assert lines_only_in(left, right) == 0
    assert lines_only_in(right, left) == len(added)


def _diffed_sizes(monkeypatch) -> list[int]:
    """The pair counts difflib is asked to diff."""
    import difflib

    sizes: list[int] = []
    real = difflib.SequenceMatcher

    def counting(isjunk, a, b, autojunk=True):
        sizes.append(len(a) * len(b))
        return real(isjunk, a, b, autojunk)

    monkeypatch.setattr(notes_merge.difflib, "SequenceMatcher", counting)
    return sizes


def test_a_file_of_a_million_identical_lines_is_never_diffed_whole(monkeypatch):
    sizes = _diffed_sizes(monkeypatch)
    same = "- same\n" * 1_000_000
    changed = "- same\n" * 400_000 + "- NEW\n" + "- same\n" * 600_000
    assert apply_edits(same, line_edits(same, changed)) == changed
    assert lines_only_in(changed, same) == 1
    many = "- other\n" * 3_000
    assert apply_edits(same, line_edits(same, many + same[3_000:])) == many + same[3_000:]
    assert all(size <= notes_merge.DIFF_PAIRS_LIMIT for size in sizes), max(sizes)


def test_a_merge_over_a_middle_too_big_to_diff_keeps_every_line_once(monkeypatch):
    sizes = _diffed_sizes(monkeypatch)
    base = "# Notes\n" + "- same\n" * 2_000
    disk = "# Notes\n" + "- same\n" * 1_000 + "- agent\n" + "- same\n" * 1_000 + "- tail\n"
    mine = "# Notes\n- mine\n" + "- same\n" * 2_000 + "- user end\n"
    merged = merge_keep_both(base, disk, mine).split("\n")
    assert merged.count("- same") == 2_000
    assert {"- agent", "- tail", "- mine", "- user end"} <= set(merged)
    assert merged.count("- agent") == merged.count("- tail") == 1
    assert all(size <= notes_merge.DIFF_PAIRS_LIMIT for size in sizes)
