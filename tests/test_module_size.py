"""Modules stay small enough to have one job: none in supervisor/ or widgets/ over 500 lines."""

from __future__ import annotations

from tests.locations import REPO

LIMIT = 500


def test_no_engine_or_widget_module_is_over_the_limit():
    sizes = {
        path.relative_to(REPO).as_posix(): len(path.read_text().splitlines())
        for folder in ("supervisor", "widgets")
        for path in (REPO / folder).rglob("*.py")
    }
    over = {name: lines for name, lines in sizes.items() if lines > LIMIT}
    assert not over, f"over {LIMIT} lines, split by job: {over}"
