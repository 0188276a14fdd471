"""The supervisor's side of the cursor invariant: checked when either file changed, fixed from disk.

Checked at start and whenever ``progress.json`` or ``artifacts.jsonl`` changed
(their modification times); a fix is recorded as an event by the store, and
the next payload carries the invariant's state. The check and the fix read and
fsync files: the supervisor runs them off the event loop.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from supervisor.errors import TetherError
from supervisor.store import invariant
from supervisor.store.artifact_scan import ArtifactScan
from supervisor.store.tether_dir import TetherDir

FIXED_FROM_DISK = (invariant.CURSOR_AHEAD, invariant.CURSOR_BEHIND, invariant.BAD_PROGRESS)


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


@dataclass(frozen=True, slots=True)
class Enforced:
    """What one look found: the result now (None: nothing changed), and what to tell the user."""

    result: invariant.InvariantResult | None = None
    problem: str | None = None
    warnings: list[str] = field(default_factory=list)  # new gaps and bad lines, each once


class InvariantGuard:
    """Disk wins: a cursor that disagrees with artifacts.jsonl is rolled to the disk truth."""

    def __init__(self, tether: TetherDir, source: str = "supervisor") -> None:
        self.tether = tether
        self.source = source
        self._stamp: tuple[float, float] | None = None
        self._scan = ArtifactScan(tether)  # the whole artifacts file, reading only appends
        self._warned: set[str] = set()

    def changed(self) -> bool:
        """Whether either file changed since the last :meth:`enforce` (two stat calls)."""
        return self._stamps() != self._stamp

    def _stamps(self) -> tuple[float, float]:
        return (_mtime(self.tether.progress), _mtime(self.tether.artifacts))

    def enforce(self) -> Enforced:
        """Check (and fix) if either file changed since the last look."""
        stamp = self._stamps()
        if stamp == self._stamp:
            return Enforced()
        self._stamp = stamp
        try:
            result = invariant.check(self.tether, self._scan)
            warnings = self._new_warnings(result.warnings)
            if result.kind in FIXED_FROM_DISK:
                fixed = invariant.fix(self.tether, source=self.source, scan=self._scan)
                self._stamp = (_mtime(self.tether.progress), stamp[1])
                said = "; ".join(fixed.changes)
                problem = f"cursor fixed from disk: {said} (was: {fixed.before.message})"
                return Enforced(fixed.after, problem, warnings)
        except TetherError as error:
            return Enforced(problem=str(error))
        return Enforced(result, warnings=warnings)

    def _new_warnings(self, warnings: list[str]) -> list[str]:
        """A gap in the indexes or a bad line is an event (Events pane, next payload), once.

        A torn last line is left to `tether check`: it may still be being written.
        """
        new = []
        for warning in warnings:
            if warning in self._warned or "torn last line" in warning:
                continue
            self._warned.add(warning)
            self.tether.record_event("artifacts-warning", self.source, warning=warning)
            new.append(warning)
        return new
