"""``python -m bench`` (``make bench``): every benchmark of issue 7, one table.

Runs the flood throughput of the headless pipeline beside tmux and a raw PTY
copy (same bytes, same run), the app under a flood, per-redraw cost, key
latency, idle CPU, peak RSS, start-up and the shell commands, and detection
latency; prints one table and writes ``bench/results/results-<UTC stamp>.json``
and ``bench/results/latest.md``. Each module also runs alone (see its
docstring). ``--quick`` is a smoke run with small workloads (a minute or two).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from bench import (
    anchors,
    detect,
    idle,
    jitter,
    keys,
    ledger_timings,
    memory,
    pipeline,
    redraw,
    startup,
    workloads,
)
from supervisor.terminal.session import default_emulator

RESULTS = Path(__file__).resolve().parent / "results"


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def _iqr(values: list[float]) -> tuple[float, float]:
    if len(values) < 4:
        return (min(values), max(values)) if values else (float("nan"), float("nan"))
    q = statistics.quantiles(values, n=4)
    return q[0], q[2]


class Table:
    """Rows of the one table, and the raw numbers behind them for the JSON."""

    HEADER = (
        "benchmark",
        "workload",
        "tether (median)",
        "spread",
        "anchors (median)",
        "ratio",
        "target",
        "result",
    )

    def __init__(self) -> None:
        self.rows: list[tuple[str, ...]] = []
        self.raw: dict[str, object] = {}

    def add(self, *cells: str) -> None:
        row = tuple(cells) + ("",) * (len(self.HEADER) - len(cells))
        self.rows.append(row)
        print(" | ".join(row), flush=True)

    def markdown(self) -> str:
        lines = ["| " + " | ".join(self.HEADER) + " |", "|" + "---|" * len(self.HEADER)]
        lines += ["| " + " | ".join(row) + " |" for row in self.rows]
        return "\n".join(lines)

    def text(self) -> str:
        widths = [
            max(len(r[i]) for r in [self.HEADER, *self.rows]) for i in range(len(self.HEADER))
        ]
        fmt = "  ".join(f"{{:<{w}}}" for w in widths)
        out = [fmt.format(*self.HEADER), fmt.format(*("-" * w for w in widths))]
        out += [fmt.format(*row) for row in self.rows]
        return "\n".join(out)


def _verdict(ok: bool) -> str:
    return "pass" if ok else "FAIL"


def _stall_verdict(stalls: list[float]) -> str:
    """Every run's longest stall within 50 ms, or how many runs went over."""
    over = sum(1 for s in stalls if s > 50)
    return "pass" if not over else f"FAIL ({over} of {len(stalls)} runs over)"


def _machine_pauses(table: Table, quick: bool) -> str:
    """How long this machine alone stretches fixed steps (`jitter.py`), as an anchor."""
    if "machine_pauses" not in table.raw:
        seconds = 2 if quick else 5
        table.raw["machine_pauses"] = {s: jitter.pauses(seconds, s) for s in jitter.STEPS}
    pauses = table.raw["machine_pauses"]
    small, big = pauses["arithmetic"], pauses["allocating"]
    return (
        f"machine alone: a {small['median_ms']:.1f} ms CPU step took up to "
        f"{small['max_ms']:.1f} ms, a {big['median_ms']:.1f} ms allocating one up to "
        f"{big['max_ms']:.1f}"
    )


def bench_floods(table: Table, repeats: int, quick: bool) -> None:
    if quick:
        loads = [
            workloads.plain_flood(2 << 20),
            workloads.redraw_flood(1 << 20),
            workloads.captures_concatenated(2),
        ]
    else:
        loads = workloads.flood_workloads()
    have_tmux = anchors.tmux_available()
    for w in loads:
        mb = w.size / 1e6
        ours, tmux, raw, stalls, busy = [], [], [], [], []
        parts = ""
        for _ in range(repeats):
            r = pipeline.pipeline_flood(w)
            ours.append(r["mb_s"])
            stalls.append(r["max_stall_ms"])
            busy.append(r["max_busy_ms"])
            parts = r["detectors"]
            raw.append(mb / anchors.raw_pty_seconds(w))
            if have_tmux:
                tmux.append(mb / anchors.tmux_seconds(w))
        med, t_med, r_med = _median(ours), _median(tmux), _median(raw)
        ratio_tmux = med / t_med if tmux else float("nan")
        table.raw[f"flood/{w.name}"] = {
            "bytes": w.size,
            "tether_mb_s": ours,
            "tmux_mb_s": tmux,
            "raw_pty_mb_s": raw,
            "max_loop_stall_ms": stalls,
            "max_loop_busy_ms": busy,
            "detectors": parts,
        }
        anchor = f"tmux {t_med:.1f} MB/s; raw PTY {r_med:.0f} MB/s" if tmux else "tmux missing"
        table.add(
            "1. pipeline throughput",
            f"{w.name} {mb:.1f} MB {w.cols}x{w.rows} (detectors: {parts})",
            f"{med:.2f} MB/s",
            f"{min(ours):.2f}–{max(ours):.2f} ({repeats} runs)",
            anchor,
            f"{ratio_tmux:.3f}× tmux; {med / r_med:.4f}× raw",
            "≥ 1.0× tmux",
            _verdict(ratio_tmux >= 1.0) if tmux else "n/a",
        )
        table.add(
            "1. pipeline loop stall",
            f"{w.name} (headless, probe every 5 ms): wall / own CPU",
            f"{_median(stalls):.1f} / {_median(busy):.1f} ms max",
            f"{min(stalls):.1f}–{max(stalls):.1f} / {min(busy):.1f}–{max(busy):.1f}",
            _machine_pauses(table, quick),
            "",
            "≤ 50 ms",
            _stall_verdict(stalls),
        )


def bench_app_flood(table: Table, runs: int, quick: bool) -> None:
    app = f"TetherApp headless {keys.APP_SIZE[0]}x{keys.APP_SIZE[1]}"
    redraw_bytes = 1 << 20 if quick else workloads.REDRAW_BYTES
    plain_bytes = 2 << 20 if quick else workloads.PLAIN_BYTES
    redraws = workloads.redraw_flood(redraw_bytes)
    plain = workloads.plain_flood(plain_bytes)
    machine = _machine_pauses(table, quick)
    lat: list[float] = []
    cases = (("redraw", redraws, redraw_bytes, runs), ("plain", plain, plain_bytes, runs - 2))
    for kind, w, nbytes, n in cases:
        n = max(1, n)
        results = [keys.app_flood_alone(kind, nbytes) for _ in range(n)]
        table.raw[f"app_flood/{w.name.split()[0]}"] = results
        mb_s = [r["mb_s"] for r in results]
        fps = [r["frames_per_second"] for r in results]
        stalls = [r["max_stall_ms"] for r in results]
        busy = [r["max_busy_ms"] for r in results]
        lat += [x * 1000 for r in results for x in r["key_to_pty"]]
        table.add(
            "1. app under flood: throughput",
            f"{w.name} {w.size / 1e6:.1f} MB, {app}; view repainted {_median(fps):.0f} screens/s",
            f"{_median(mb_s):.2f} MB/s",
            f"{min(mb_s):.2f}–{max(mb_s):.2f} ({n} runs)",
            "",
            "",
            "",
            "",
        )
        table.add(
            "1. app under flood: UI stall",
            f"{w.name}: longest event-loop stall of each run, probe every 5 ms: wall / own CPU",
            f"{_median(stalls):.1f} / {_median(busy):.1f} ms",
            f"{min(stalls):.1f}–{max(stalls):.1f} / {min(busy):.1f}–{max(busy):.1f} ({n} runs)",
            machine,
            "",
            "≤ 50 ms",
            _stall_verdict(stalls),
        )
    lo, hi = _iqr(lat)
    table.add(
        "3. key → PTY under flood",
        f"{len(lat)} keys during the floods",
        f"{_median(lat):.1f} ms",
        f"IQR {lo:.1f}–{hi:.1f}, max {max(lat, default=float('nan')):.1f}",
        "",
        "",
        "≤ 50 ms (a frame)",
        _verdict(max(lat, default=1e9) <= 50),
    )


def bench_redraw(table: Table) -> None:
    for cache in (True, False):
        ms = [c * 1000 for c in redraw.redraw_costs(cache)]
        table.raw[f"redraw/cache_{'on' if cache else 'off'}"] = {
            "median_ms": _median(ms),
            "p95_ms": statistics.quantiles(ms, n=20)[-1],
            "max_ms": max(ms),
            "count": len(ms),
        }
        lo, hi = _iqr(ms)
        med = _median(ms)
        table.add(
            "2. cost per redraw",
            f"{len(workloads.capture_names())} real captures by `o` event ({len(ms)}), "
            f"cache {'on' if cache else 'off'}",
            f"{med:.3f} ms",
            f"IQR {lo:.3f}–{hi:.3f}, p95 {statistics.quantiles(ms, n=20)[-1]:.2f}",
            "",
            "",
            "≤ 3 ms median",
            _verdict(med <= 3),
        )


def bench_keys(table: Table, presses: int) -> None:
    r = keys.key_latencies(presses)
    table.raw["keys"] = r
    for name, label in (("to_pty", "key → bytes to PTY"), ("to_paint", "key → echo painted")):
        ms = [x * 1000 for x in r[name]]
        lo, hi = _iqr(ms)
        table.add(
            f"3. {label}",
            f"Pilot on TetherApp around `cat`, {len(ms)} keys",
            f"{_median(ms):.2f} ms",
            f"IQR {lo:.2f}–{hi:.2f}",
        )


def bench_idle(table: Table, seconds: float) -> None:
    if not shutil.which("tmux"):
        table.add("4. idle CPU", "needs tmux", "", "", "", "", "≤ 1%", "n/a")
        return
    r = idle.idle_cpu(seconds)
    table.raw["idle"] = r
    table.add(
        "4. idle CPU",
        f"`tether run -- sleep` in tmux, {r['wall_seconds']:.0f} s",
        f"{r['percent']:.3f}% of a core",
        f"{r['cpu_seconds']:.2f} s CPU",
        f"start-up {r['startup_cpu_seconds']:.2f} s CPU, "
        f"idle after {r['settled_after_seconds']:.0f} s",
        "",
        "≤ 1%",
        _verdict(r["percent"] <= 1),
    )


def bench_memory(table: Table, megabytes: int) -> None:
    r = memory.peak_rss(megabytes)
    table.raw["memory"] = r
    steps = ", ".join(f"{k}: {v:.0f}" for k, v in r["peak_at"].items())
    table.add(
        "5. peak RSS",
        f"{r['megabytes']:.0f} MB through a session (scrollback 5000)",
        f"{r['peak_rss_mb']:.0f} MB",
        f"peak at {steps} MB",
        f"{r['baseline_rss_mb']:.0f} MB at start",
        "",
        "≤ 150 MB after 1 GB",
        _verdict(r["peak_rss_mb"] <= 150) + f" at {r['megabytes']:.0f} MB",
    )


def bench_startup(table: Table, runs: int, frames: int) -> None:
    times = startup.command_times(runs)
    table.raw["commands"] = times
    base = _median(times["python -c pass"])
    names = ("tether hook Stop", startup.SERVED_STOP, "tether note", startup.SERVED, startup.ALONE)
    for name in names:
        ms = [x * 1000 for x in times[name]]
        lo, hi = _iqr(ms)
        ratio = _median(times[name]) / base
        # Issue 19's target is the hook as the agent meets it, answered by its supervisor.
        is_hook = name in (startup.SERVED_STOP, startup.SERVED)
        table.add(
            "6. command wall time",
            f"`{name}` as a whole process",
            f"{_median(ms):.0f} ms",
            f"IQR {lo:.0f}–{hi:.0f}",
            f"python -c pass {base * 1000:.0f} ms",
            f"{ratio:.2f}×",
            "≤ 3× python" if is_hook else "",
            _verdict(ratio <= 3) if is_hook else "",
        )
    if shutil.which("tmux"):
        f = startup.first_frame_times(frames)
        table.raw["first_frame"] = f
        ms = [x * 1000 for x in f["tether"]]
        table.add(
            "6. start-up to first agent frame",
            "`tether run -- sh -c 'printf MARK'` in tmux 160x48",
            f"{_median(ms):.0f} ms",
            f"{min(ms):.0f}–{max(ms):.0f} ({len(ms)} runs)",
            f"bare in tmux {_median(f['bare']) * 1000:.0f} ms",
            "",
            "≤ 150 ms",
            _verdict(_median(ms) <= 150),
        )


def bench_ledger(table: Table, runs: int) -> None:
    """Issue 28: a week-long ledger (300,000 actions) keeps the hook and the payload as fast."""
    times = ledger_timings.ledger_times(runs)
    table.raw["ledger"] = times
    for command in ("tether hook PostToolUse", "tether hook SessionStart compact"):
        base = _median(times[f"{command}, ledger none"])
        for kind, words in (
            ("rolled", "300,000 actions, rolled over"),
            ("flat", "300,000 in one file"),
        ):
            values = times[f"{command}, ledger {kind}"]
            ms = [x * 1000 for x in values]
            lo, hi = _iqr(ms)
            ratio = _median(values) / base
            table.add(
                "8. ledger",
                f"`{command}` (supervisor answers), {words}",
                f"{_median(ms):.0f} ms",
                f"IQR {lo:.0f}–{hi:.0f}",
                f"no ledger {base * 1000:.0f} ms",
                f"{ratio:.2f}×",
                "≤ 1.5× no ledger",
                _verdict(ratio <= 1.5),
            )


def bench_detection(table: Table) -> None:
    r = detect.detection_latencies()
    table.raw["detection"] = r
    if not r["available"]:
        table.add("7. detection latency", "screen detector / fusion not present", "", "", "")
        return
    ms = [x * 1000 for x in r["latencies"]]
    lo, hi = _iqr(ms)
    table.add(
        "7. detection latency",
        f"compaction line written → incident ({len(ms)}/{r['markers']} found)",
        f"{_median(ms):.2f} ms",
        f"IQR {lo:.2f}–{hi:.2f}",
    )


def _machine() -> dict:
    def out(cmd: list[str]) -> str:
        try:
            return subprocess.run(cmd, capture_output=True, text=True).stdout.strip()
        except OSError:
            return ""

    return {
        "cores": os.cpu_count(),
        "loadavg": os.getloadavg(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "tmux": out(["tmux", "-V"]),
        "git": out(["git", "-C", str(RESULTS.parent.parent), "rev-parse", "--short", "HEAD"]),
        "emulator": type(default_emulator(2, 2)).__name__,
    }


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small workloads, short idle")
    parser.add_argument("--no-save", action="store_true", help="do not write bench/results/")
    args = parser.parse_args()
    quick = args.quick
    started = time.perf_counter()
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    table = Table()
    machine = _machine()
    print(f"tether benchmarks, {machine['cores']} cores, load {machine['loadavg']}", flush=True)
    steps = [
        ("floods", lambda: bench_floods(table, 1 if quick else 3, quick)),
        ("app flood", lambda: bench_app_flood(table, 1 if quick else 5, quick)),
        ("redraw", lambda: bench_redraw(table)),
        ("keys", lambda: bench_keys(table, 10 if quick else 40)),
        ("idle", lambda: bench_idle(table, 10 if quick else 60)),
        ("memory", lambda: bench_memory(table, 8 if quick else 1000)),
        ("startup", lambda: bench_startup(table, 5 if quick else 20, 2 if quick else 5)),
        ("detection", lambda: bench_detection(table)),
        ("ledger", lambda: bench_ledger(table, 3 if quick else 15)),
    ]
    timings = {}
    for name, step in steps:
        t = time.perf_counter()
        try:
            step()
        except Exception as error:  # one broken benchmark must not hide the others
            table.add(
                name, f"error: {type(error).__name__}: {error}"[:120], "", "", "", "", "", "ERROR"
            )
        timings[name] = time.perf_counter() - t
    total = time.perf_counter() - started
    print()
    print(table.text())
    print(f"\n{total:.0f} s in all: " + ", ".join(f"{k} {v:.0f} s" for k, v in timings.items()))
    if not args.no_save:
        RESULTS.mkdir(exist_ok=True)
        record = {
            "stamp": stamp,
            "quick": quick,
            "machine": machine,
            "seconds": total,
            "step_seconds": timings,
            "table": [dict(zip(Table.HEADER, row, strict=True)) for row in table.rows],
            "raw": table.raw,
        }
        (RESULTS / f"results-{stamp}.json").write_text(json.dumps(record, indent=1) + "\n")
        md = (
            f"# tether benchmarks, {stamp}\n\n"
            f"`make bench` on {machine['cores']} cores ({machine['platform']}), Python "
            f"{machine['python']}, {machine['tmux']}, commit {machine['git']}, "
            f"emulator {machine['emulator']}, load "
            f"{', '.join(f'{x:.2f}' for x in machine['loadavg'])} at start; {total:.0f} s in all"
            f"{' (--quick)' if quick else ''}. Raw numbers: `results-{stamp}.json`. "
            "How each is measured: `bench/README.md`.\n\n" + table.markdown() + "\n"
        )
        (RESULTS / "latest.md").write_text(md)
        print(f"written: bench/results/results-{stamp}.json, bench/results/latest.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
