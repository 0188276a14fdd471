"""SIGKILL at random moments must never cost an acknowledged write or a parseable file."""

from __future__ import annotations

import random

from supervisor.store import invariant
from supervisor.store.tether_dir import TetherDir
from tests.crash_writer import Acks, Server, prepare, verify

RUNS = 200


def test_acknowledged_writes_survive_hundreds_of_sigkills(tmp_path):
    work = tmp_path / "work"
    prepare(work)
    rng = random.Random(20260501)
    acks = Acks()
    server = Server()
    try:
        for run in range(RUNS):
            server.run(work, f"r{run}", rng.uniform(0.0, 0.015), acks)
            problems = verify(work, acks, kills=run + 1)
            assert not problems, f"after kill {run + 1}: {problems}"
    finally:
        server.close()
    # Not a timing claim: only that the kills met a writer that was writing.
    assert acks.artifacts and acks.notes and acks.events and acks.checkpoints


def test_check_fix_after_the_kills_leaves_the_invariant_true(tmp_path):
    work = tmp_path / "work"
    prepare(work)
    acks = Acks()
    server = Server()
    try:
        for run in range(20):
            server.run(work, f"r{run}", 0.002 * (run % 7), acks)
    finally:
        server.close()
    tether = TetherDir.at(work)
    invariant.fix(tether)
    assert invariant.check(tether).ok
