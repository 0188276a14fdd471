"""The supervisor's side of the cursor invariant: checked when either file changed, fixed from disk.

Checked at start and whenever ``progress.json`` or ``artifacts.jsonl`` changed
(their modification times); a fix is recorded as an event by the store, and
the next payload carries the invariant's state. The check and the fix read and
fsync files: the supervisor runs them off the event loop.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from supervisor.errors import TetherError
from supervisor.store import invariant
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


class InvariantGuard:
    """Disk wins: a cursor that disagrees with artifacts.jsonl is rolled to the disk truth."""

    def __init__(self, tether: TetherDir, source: str = "supervisor") -> None:
        self.tether = tether
        self.source = source
        self._stamp: tuple[float, float] | None = None

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
            result = invariant.check(self.tether)
            if result.kind in FIXED_FROM_DISK:
                fixed = invariant.fix(self.tether, source=self.source)
                self._stamp = (_mtime(self.tether.progress), stamp[1])
                return Enforced(fixed.after, f"cursor fixed from disk: {fixed.before.message}")
        except TetherError as error:
            return Enforced(problem=str(error))
        return Enforced(result)
