"""Crash soak: thousands of SIGKILLs of a store writer, checking the disk after each.

The test suite does a few hundred (tests/store/test_crash_safety.py); this does as
many as you ask for, with a new random seed each time unless one is given.

    .venv/bin/python bench/crash_soak.py [--kills 5000] [--seed N] [--max-delay 0.03]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from supervisor.store import invariant  # noqa: E402
from supervisor.store.tether_dir import TetherDir  # noqa: E402
from tests.crash_writer import Acks, Server, prepare, verify  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--max-delay", type=float, default=0.03)
    parser.add_argument("--verify-every", type=int, default=10, help="full check every N kills")
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    print(f"seed {seed}")
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder, "work")
        prepare(work)
        acks = Acks()
        server = Server()
        start = time.perf_counter()
        try:
            for kill in range(1, args.kills + 1):
                server.run(work, f"r{kill}", rng.uniform(0, args.max_delay), acks)
                if kill % args.verify_every == 0 or kill == args.kills:
                    problems = verify(work, acks, kills=kill)
                    if problems:
                        print(f"FAILED after kill {kill} (seed {seed}):", *problems, sep="\n  ")
                        return 1
                if kill % 500 == 0:
                    print(f"{kill} kills, {len(acks.artifacts)} artifacts acknowledged, ok")
        finally:
            server.close()
        tether = TetherDir.at(work)
        verdict = invariant.check(tether)
        elapsed = time.perf_counter() - start
        print(
            f"{args.kills} kills in {elapsed:.1f} s: {len(acks.artifacts)} artifacts, "
            f"{len(acks.notes)} notes, {len(acks.events)} events, "
            f"{len(acks.checkpoints)} checkpoints acknowledged, all present; "
            f"check: {verdict.message}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
