"""The byte streams every benchmark feeds: a plain flood, an Ink-style redraw flood, real captures.

Each workload is the exact bytes a child writes to its (raw-mode) terminal, so
tether, tmux and the raw PTY copy see the same stream. The synthetic ones are
generated deterministically (same bytes on every run and machine) and cached
under the system temp folder, keyed by their parameters.

    .venv/bin/python -m bench.workloads     # print the workloads and their sizes
"""

from __future__ import annotations

import json
import random
import tempfile
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CAPTURES = REPO / "tests" / "fixtures" / "captures"
CACHE = Path(tempfile.gettempdir()) / "tether-bench-workloads"

PLAIN_BYTES = 20 * 1024 * 1024
REDRAW_BYTES = 5 * 1024 * 1024
FLOOD_COLS, FLOOD_ROWS = 120, 40

_WORDS = tuple(
    [
        "alpha",
        "bravo",
        "charlie",
        "delta",
        "echo",
        "foxtrot",
        "golf",
        "hotel",
        "india",
        "juliet",
        "kilo",
        "lima",
        "mike",
        "november",
        "oscar",
        "papa",
        "quebec",
        "romeo",
        "sierra",
        "tango",
        "uniform",
        "victor",
        "whiskey",
        "xray",
        "yankee",
        "zulu",
        "compile",
        "test",
        "passed",
        "failed",
        "src/supervisor/session.py:42",
        "warning:",
        "unused",
        "import",
        "INFO",
        "DEBUG",
    ]
)
# An agent's theme: a few dozen 24-bit colours, as Claude Code's and Codex's renderers use.
_THEME = [(random.Random(c).randrange(256), (c * 53) % 256, (c * 97) % 256) for c in range(32)]


@dataclass(frozen=True)
class Workload:
    """One stream of output bytes at one terminal size."""

    name: str
    path: Path
    cols: int
    rows: int
    description: str

    @property
    def size(self) -> int:
        return self.path.stat().st_size

    def data(self) -> bytes:
        return self.path.read_bytes()


def _plain(size: int) -> bytes:
    """Log-like lines of printable ASCII, 20 to 110 columns, CRLF (the child's tty is raw)."""
    rng = random.Random(7)
    out: list[bytes] = []
    total = n = 0
    while total < size:
        words = []
        width = rng.randint(20, 110)
        length = 0
        while length < width:
            word = rng.choice(_WORDS)
            words.append(word)
            length += len(word) + 1
        line = f"{n:07d} " + " ".join(words)
        data = line[:110].encode() + b"\r\n"
        out.append(data)
        total += len(data)
        n += 1
    return b"".join(out)[:size]


def _ink_frame(rng: random.Random, frame: int, cols: int, rows: int) -> bytes:
    """One Ink-style frame: erase the old frame line by line, redraw every row in 24-bit colour.

    This is what Claude Code's renderer does on a full repaint: ``ESC[2K ESC[1A``
    up the old frame, then each line as styled runs, under synchronized output.
    """
    parts = ["\x1b[?2026h", "\x1b[2K\x1b[1A" * (rows - 1), "\x1b[2K\x1b[G"]
    spinner = "✻✽✶✳✢·"[frame % 6]
    for y in range(rows - 1):
        runs = []
        width = 0
        while width < cols - 12:
            word = rng.choice(_WORDS)
            r, g, b = rng.choice(_THEME)
            bold = "1;" if rng.random() < 0.2 else ""
            runs.append(f"\x1b[{bold}38;2;{r};{g};{b}m{word}\x1b[39;22m ")
            width += len(word) + 1
        if y == rows - 2:
            status = f"{spinner} Working… ({frame}s · esc to interrupt)"
            runs = [f"\x1b[38;2;215;119;87m{status}\x1b[39m"]
        parts.append("".join(runs) + "\x1b[K\r\n")
    parts.append(f"\x1b[48;2;55;55;55m> frame {frame}\x1b[K\x1b[49m")
    parts.append("\x1b[?2026l")
    return "".join(parts).encode()


def _redraw(size: int, cols: int, rows: int) -> bytes:
    rng = random.Random(11)
    out: list[bytes] = []
    total = frame = 0
    while total < size:
        data = _ink_frame(rng, frame, cols, rows)
        out.append(data)
        total += len(data)
        frame += 1
    return b"".join(out)


def _cached(name: str, make) -> Path:
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / name
    if not path.exists():
        tmp = path.with_suffix(".tmp")
        tmp.write_bytes(make())
        tmp.replace(path)
    return path


def plain_flood(size: int = PLAIN_BYTES) -> Workload:
    path = _cached(f"plain-{size}.bin", lambda: _plain(size))
    return Workload(
        "plain",
        path,
        FLOOD_COLS,
        FLOOD_ROWS,
        f"{size / 2**20:.0f} MiB of log lines (ASCII, CRLF), like `cat big.log`",
    )


def redraw_flood(size: int = REDRAW_BYTES) -> Workload:
    path = _cached(
        f"redraw-{size}-{FLOOD_COLS}x{FLOOD_ROWS}.bin",
        lambda: _redraw(size, FLOOD_COLS, FLOOD_ROWS),
    )
    return Workload(
        "ink-redraw",
        path,
        FLOOD_COLS,
        FLOOD_ROWS,
        f"{size / 2**20:.0f} MiB of Ink-style full-screen truecolor redraws "
        f"({FLOOD_COLS}x{FLOOD_ROWS}, ?2026 frames)",
    )


def capture_names() -> list[str]:
    return sorted(p.stem for p in CAPTURES.glob("*.raw"))


def capture(name: str) -> Workload:
    cast = CAPTURES / f"{name}.cast"
    header = json.loads(cast.open().readline())
    return Workload(
        name,
        CAPTURES / f"{name}.raw",
        int(header["width"]),
        int(header["height"]),
        f"real capture {name}.raw",
    )


def captures_concatenated(repeat: int = 10) -> Workload:
    """Every real capture back to back, ``repeat`` times: real agent bytes, enough to time."""

    def make() -> bytes:
        joined = b"".join(capture(n).data() + b"\x1b[0m\x1bc" for n in capture_names())
        return joined * repeat

    names = capture_names()
    path = _cached(f"captures-{len(names)}-x{repeat}.bin", make)
    return Workload(
        "captures",
        path,
        120,
        40,
        f"all {len(names)} real captures back to back x{repeat} (RIS between)",
    )


def cast_frames(name: str) -> list[tuple[float, bytes]]:
    """The ``o`` events of a capture's asciicast: (seconds, bytes), as the agent wrote them."""
    frames = []
    with (CAPTURES / f"{name}.cast").open() as f:
        f.readline()
        for line in f:
            if not line.strip():
                continue
            at, kind, text = json.loads(line)
            if kind == "o":
                frames.append((float(at), text.encode("utf-8", "surrogateescape")))
    return frames


def flood_workloads() -> list[Workload]:
    return [plain_flood(), redraw_flood(), captures_concatenated()]


if __name__ == "__main__":
    for w in [*flood_workloads(), *(capture(n) for n in capture_names())]:
        print(f"{w.name:24} {w.size:>10} B  {w.cols}x{w.rows}  {w.description}")
