"""The three floods with each backend and reader and tmux, interleaved in one run
(issue 19's A/B).

``make bench`` measures the defaults only; this runs the headless pipeline with
``TETHER_EMULATOR=avt`` and ``ghostty``, each with the PTY read by its reader process and
(``--readers process direct``) by the session itself (``TETHER_PTY_READER=direct``), and
tmux, one after another in each round, so all meet the same load.
``python -m bench.flood_ab [--runs N] [--backends ghostty] [--readers process direct]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics

from bench import anchors, pipeline
from bench.workloads import flood_workloads

BACKENDS = ("avt", "ghostty")


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.flood_ab", description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", nargs="*", help="workload names (plain, redraws, captures)")
    parser.add_argument("--backends", nargs="*", default=BACKENDS, help="e.g. ghostty alone")
    parser.add_argument("--readers", nargs="*", default=("process",), help="process, direct")
    args = parser.parse_args()
    backends = tuple(
        backend if reader == "process" else f"{backend}/{reader}"
        for backend in args.backends
        for reader in args.readers
    )
    print("load", os.getloadavg(), flush=True)
    out: dict = {"load_start": os.getloadavg()}
    for w in flood_workloads():
        if args.only and w.name not in args.only:
            continue
        mb = w.size / 1e6
        runs: dict[str, list[float]] = {b: [] for b in (*backends, "tmux")}
        for _ in range(args.runs):
            for backend in backends:
                emulator, _, reader = backend.partition("/")
                os.environ["TETHER_EMULATOR"] = emulator
                os.environ["TETHER_PTY_READER"] = reader or "process"
                runs[backend].append(pipeline.pipeline_flood(w)["mb_s"])
            runs["tmux"].append(mb / anchors.tmux_seconds(w))
        os.environ.pop("TETHER_EMULATOR", None)
        os.environ.pop("TETHER_PTY_READER", None)
        out[w.name] = runs
        tmux = statistics.median(runs["tmux"])
        cells = [f"tmux {tmux:5.1f} ({min(runs['tmux']):.1f}-{max(runs['tmux']):.1f})"]
        for backend in backends:
            m = statistics.median(runs[backend])
            lo, hi = min(runs[backend]), max(runs[backend])
            cells.append(f"{backend} {m:5.1f} ({lo:.1f}-{hi:.1f}) = {m / tmux:.2f}x")
        print(f"{w.name:9} {mb:5.1f} MB  " + "  ".join(cells), flush=True)
    out["load_end"] = os.getloadavg()
    print("load", out["load_end"])
    print(json.dumps(out))


if __name__ == "__main__":
    main()
