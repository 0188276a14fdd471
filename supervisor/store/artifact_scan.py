"""The whole of `artifacts.jsonl`, read once and then only its new bytes: gaps and bad lines.

The cursor invariant looks at the last artifact only, so a gap in the indexes
(0, 1, 2, 3, 5) or an unreadable line in the middle would pass unseen. The file
only grows by appends, so a scan remembers how far it has read and, on the next
look, reads from there: the cost of each look is what was appended since. A
file that shrank or was replaced is read again from the start.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from supervisor.store.fsio import BadLine, loads_why
from supervisor.store.progress import is_count
from supervisor.store.tether_dir import TetherDir


@dataclass(frozen=True, slots=True)
class Gap:
    """Index ``found`` on line ``line`` follows ``after``: the indexes between are missing."""

    after: int
    found: int
    line: int

    def __str__(self) -> str:
        if self.after < 0:
            return f"the first index is {self.found}, not 0"
        if self.found == self.after:
            return f"index {self.found} again"
        if self.found < self.after:
            return f"index {self.found} after {self.after}: the indexes go back"
        missing = (
            f"index {self.after + 1} is missing"
            if self.found == self.after + 2
            else f"indexes {self.after + 1}..{self.found - 1} are missing"
        )
        return f"index {self.found} follows {self.after}: {missing}"


@dataclass(slots=True)
class ScanResult:
    gaps: list[Gap] = field(default_factory=list)
    bad_lines: list[BadLine] = field(default_factory=list)

    def warnings(self, path: object) -> list[str]:
        said = [f"{path}:{gap.line}: {gap}" for gap in self.gaps]
        return said + [str(bad) for bad in self.bad_lines]


class ArtifactScan:
    """Remembers what it read of `artifacts.jsonl`; :meth:`look` reads the rest."""

    def __init__(self, tether: TetherDir) -> None:
        self.tether = tether
        self._reset(None)

    def _reset(self, identity: tuple[int, int] | None) -> None:
        self._identity = identity
        self._offset = 0
        self._line = 0
        self._last_index: int | None = None
        self._result = ScanResult()

    def look(self) -> ScanResult:
        """Gaps and bad lines of the whole file, as of now.

        A last line without its newline is left for the next look (it may still be
        being written) and reported as torn meanwhile.
        """
        path = self.tether.artifacts
        try:
            with open(path, "rb") as handle:
                info = os.fstat(handle.fileno())
                identity = (info.st_dev, info.st_ino)
                if identity != self._identity or info.st_size < self._offset:
                    self._reset(identity)
                handle.seek(self._offset)
                data = handle.read(info.st_size - self._offset)
        except FileNotFoundError:
            self._reset(None)
            return ScanResult()
        complete, _, tail = data.rpartition(b"\n")
        if complete or data.endswith(b"\n"):
            for raw in (complete + b"\n").split(b"\n")[:-1]:
                self._line += 1
                self._take(raw)
            self._offset += len(complete) + 1
        result = ScanResult(list(self._result.gaps), list(self._result.bad_lines))
        if tail.strip():
            torn = BadLine(path, self._line + 1, "torn last line (a write was cut short)")
            _, why = loads_why(tail)
            if why is not None:
                result.bad_lines.append(torn)
        return result

    def _take(self, raw: bytes) -> None:
        if not raw.strip():
            return
        path = self.tether.artifacts
        record, why = loads_why(raw)
        if why is not None:
            self._result.bad_lines.append(BadLine(path, self._line, why))
            return
        index = record.get("index") if isinstance(record, dict) else None
        if not is_count(index):
            self._result.bad_lines.append(BadLine(path, self._line, 'no whole-number "index"'))
            return
        last = self._last_index
        if last is not None and index != last + 1:
            self._result.gaps.append(Gap(last, index, self._line))
        elif last is None and index != 0:
            self._result.gaps.append(Gap(-1, index, self._line))
        self._last_index = index
