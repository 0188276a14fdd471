"""The checkpoint before each paste is written off the event loop: keys still reach the agent.

Megabytes of notes make the checkpoint's copy slow (0.1 s at 4 MB, 1 s at 50 MB);
the test holds the `.tether/` update lock the copy needs, from another thread, so
the checkpoint is "in the middle of its write" for as long as the test likes,
without a clock. Written on the loop, it would stop the loop until the holder
gives up; written on a worker, the loop goes on and the paste follows the
checkpoint once it is on disk.
"""

from __future__ import annotations

import threading

import pytest

from supervisor.config.profiles import load_profile
from supervisor.rehydrate.injector import QUEUED, SENT
from supervisor.store import checkpoints
from supervisor.store.tether_dir import TetherDir, init
from tests.conftest import until
from tests.rehydrate.test_injector import Child, Probe, expected_paste, git_asker, injections

BIG_NOTES = 4 * 1024 * 1024
HOLD_BOUND = 15.0  # seconds the holder waits before it gives up (a failure, not a pass)


class HeldStore:
    """The `.tether/` update lock held by another thread until :meth:`release`."""

    def __init__(self, tether: TetherDir) -> None:
        self._release = threading.Event()
        self._holding = threading.Event()
        self.gave_up = False
        self._thread = threading.Thread(target=self._hold, args=(tether,), daemon=True)
        self._thread.start()
        assert self._holding.wait(HOLD_BOUND), "the holder never took the lock"

    def _hold(self, tether: TetherDir) -> None:
        with tether.updating():
            self._holding.set()
            self.gave_up = not self._release.wait(HOLD_BOUND)

    def release(self) -> None:
        self._release.set()
        self._thread.join(HOLD_BOUND)


@pytest.fixture
def big_tether(tmp_path) -> TetherDir:
    """A `.tether/` (outside git) whose notes.md holds 4 MB of done items."""
    (tmp_path / "work").mkdir()
    tether = init(tmp_path / "work", goal="count to 400").tether
    line = "- [2026-12-01T10:00:00Z] wrote artifact with a long description of it\n"
    done = line * (BIG_NOTES // len(line))
    tether.write_notes(tether.read_notes() + "\n## Done\n" + done)
    return tether


async def test_keys_reach_the_agent_while_the_checkpoint_before_a_paste_is_written(
    tmp_path, big_tether
):
    tether = big_tether
    profile = load_profile("demo")
    child = Child(tmp_path, bracketed=True)
    await child.start()
    supervision = git_asker(tether)
    probe = Probe()
    held = HeldStore(tether)
    try:
        injector = child.injector(tether, profile, take_checkpoint=supervision.checkpoint)
        assert injector.request("the payload", "rehydrate", incident=2) == SENT
        await until(lambda: supervision.checkpointer.writing == 1, "the checkpoint's write")
        await probe.fires()  # the loop turns while the checkpoint waits for the lock
        child.session.send_input(b"typed while it copies")
        await until(lambda: child.received() == b"typed while it copies", "the keys")
        assert checkpoints.list_seqs(tether) == [] and not held.gave_up
        assert injector.request("a newer state", "rehydrate") == QUEUED  # behind the first
        held.release()
        paste = expected_paste("the payload") + b"\r"
        await until(lambda: child.received().endswith(paste), "the paste")
    finally:
        held.release()
        probe.stop()
        child.stop()
        supervision.close()
    assert not held.gave_up
    assert checkpoints.list_seqs(tether) == [1]
    snapshot = checkpoints.load(tether, 1)
    assert snapshot.reason == "before injection" and snapshot.incident == 2
    assert len(snapshot.notes) > BIG_NOTES // 2
    (sent,) = injections(tether)
    assert sent["checkpoint"] == 1 and snapshot.at <= sent["at"]


async def test_the_users_checkpoint_is_copied_off_the_loop_and_heard_on_it(big_tether):
    tether = big_tether
    supervision = git_asker(tether)
    heard: list = []
    held = HeldStore(tether)
    probe = Probe()
    try:
        supervision.checkpoint("manual (key)", then=heard.append)
        await until(lambda: supervision.checkpointer.writing == 1, "the checkpoint's write")
        await probe.fires()
        assert heard == [] and checkpoints.list_seqs(tether) == [] and not held.gave_up
        held.release()
        await until(lambda: heard, "the checkpoint")
    finally:
        held.release()
        probe.stop()
        supervision.close()
    assert [taken.seq for taken in heard] == [1] and not held.gave_up
    assert heard[0].notes == tether.read_notes()
