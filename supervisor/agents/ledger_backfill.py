"""Into the ledger, what the tool hooks did not report but the session file did.

The transcript or rollout is read on the tick's worker thread; each tool call it
finished (:mod:`supervisor.recognize.tool_reports`) waits :data:`GRACE_S` for its hook,
which usually comes first and writes the same id; a call still missing from the
ledger then is recorded with ``"source": "transcript"``. Its checkout is the one at
that moment, a few seconds after the call: the hook's is exact, this one is close.
"""

from __future__ import annotations

import json
from pathlib import Path

from supervisor.agents.action_ledger import record_tool_hook
from supervisor.recognize.tool_reports import Report
from supervisor.store.ledger import Ledger

GRACE_S = 3.0
PENDING_MAX = 200


class LedgerBackfill:
    """Tool calls seen in the session file, recorded unless a hook recorded them first."""

    def __init__(self, work_dir: Path) -> None:
        self.work_dir = Path(work_dir)
        self._pending: list[tuple[float, Report]] = []

    def add(self, reports: list[Report], now: float) -> None:
        self._pending += [(now, report) for report in reports]
        del self._pending[:-PENDING_MAX]

    def run(self, now: float) -> int:
        """Record the calls past their grace that no hook recorded; returns how many."""
        ripe = [report for seen, report in self._pending if now - seen >= GRACE_S]
        self._pending = [(seen, r) for seen, r in self._pending if now - seen < GRACE_S]
        if not ripe or not (self.work_dir / ".tether").is_dir():
            return 0
        ledger = Ledger(self.work_dir / ".tether")
        recorded = 0
        for event, payload in ripe:
            call = payload.get("tool_use_id")
            if not isinstance(call, str) or not call:
                continue
            _, found = ledger.history(json.dumps(call).encode(), 1)
            if any(record.get("id") == call for record in found):
                continue  # the hook was first
            record_tool_hook(event, payload, str(self.work_dir), source="transcript")
            recorded += 1
        return recorded
