"""In the app: keys reach the agent while the checkpoint before a paste is written, and the
paste still waits for a line the user started typing.

4 MB of notes make the checkpoint's copy slow; the test holds the `.tether/` update
lock that copy needs (tests/rehydrate/test_injector_off_loop.py), so the checkpoint
is mid-write for as long as the test likes, without a clock.
"""

from __future__ import annotations

import sys

from supervisor.app import TetherApp
from supervisor.run.supervision import RunConfig
from supervisor.store import checkpoints
from supervisor.store.tether_dir import init
from tests.conftest import screen_text, wait_for_screen, wait_until
from tests.rehydrate.test_injector_off_loop import BIG_NOTES, HeldStore
from tests.store_records import read_jsonl

AGENT = [
    sys.executable,
    "-c",
    "import sys\nprint('ready>', flush=True)\n"
    "for line in sys.stdin: print('got', line.strip(), flush=True)",
]


async def test_keys_reach_the_agent_during_the_checkpoint_and_the_paste_waits_for_the_line(
    tmp_path, shell_env
):
    tether = init(tmp_path, goal="count to 400").tether
    line = "- [2026-12-01T10:00:00Z] wrote artifact with a long description of it\n"
    tether.write_notes(tether.read_notes() + "\n## Done\n" + line * (BIG_NOTES // len(line)))
    app = TetherApp(RunConfig(argv=AGENT, workdir=tmp_path, env=shell_env, side_pane=False))
    held = None
    async with app.run_test(size=(100, 30)) as pilot:
        supervision = app.supervision
        await wait_for_screen(pilot, app, r"ready>")
        await wait_until(pilot, supervision.ready_for_injection, what="the agent to wait")
        held = HeldStore(tether)
        try:
            supervision.injector.confirm_into_shell()  # the default profile is a shell's
            assert supervision.rehydrate("the payload") == "sent"  # its checkpoint first
            await wait_until(pilot, lambda: supervision.checkpointer.writing == 1)
            await pilot.press(*"hello")  # the user starts a line meanwhile
            await wait_for_screen(pilot, app, r"ready>\s*\n?hello")
            assert checkpoints.list_seqs(tether) == [] and not held.gave_up
        finally:
            held.release()
        injector = supervision.injector
        await wait_until(pilot, lambda: injector.sending is None, what="the checkpoint")
        assert checkpoints.list_seqs(tether) == [1]
        assert injector.status().state == "queued"  # not glued to "hello"
        await pilot.press("enter")  # the line is sent: the payload may follow
        await wait_for_screen(pilot, app, r"got hello")
        await wait_for_screen(pilot, app, r"got the payload")
        screen = screen_text(app.session)
    assert not held.gave_up and "hellothe payload" not in screen
    (sent,) = [e for e in read_jsonl(tether.events)[0] if e["kind"] == "injection"]
    assert sent["checkpoint"] == 2 and checkpoints.list_seqs(tether) == [1, 2, 3]  # 3: the quit's
