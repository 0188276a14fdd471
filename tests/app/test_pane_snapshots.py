"""SVG snapshots of the three panes over fixed data (see tests/pane_screens.py).

Regenerate after an intended change with ``pytest tests/app/test_pane_snapshots.py
--snapshot-update`` and look at the pictures before committing them.
"""

from __future__ import annotations

from functools import partial

import pytest

from tests.pane_screens import SIZE, build, prepare


@pytest.mark.parametrize("tab", ["notes", "progress", "checkpoints", "events"])
def test_pane_snapshot(snap_compare, tmp_path, tab):
    app = build(tmp_path, tab)
    assert snap_compare(app, terminal_size=SIZE, run_before=partial(prepare, tab=tab))
