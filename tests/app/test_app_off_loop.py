"""A whole run of the app touches no file under its folder from the event loop's thread.

Start, the agent's output, ticks, an incident, a quit: an audit hook lists every file
the loop's thread opens, renames, removes, truncates or touches under the work folder
(`.tether/` and its recordings). The store's I/O runs on workers and the event
recorder's thread; the loop only hands work to them (issue 23: "no file I/O on the
event loop anywhere").
"""

from __future__ import annotations

import os
import sys
import threading
import traceback

from supervisor.app import TetherApp
from supervisor.recognize.observations import COMPACTION, TRANSCRIPT, Observation
from supervisor.run.supervision import RunConfig
from supervisor.store.tether_dir import init
from tests.conftest import until, wait_for_screen, wait_until
from tests.store_records import read_jsonl

_WATCHED: list[LoopTouches] = []
# The audit events of a file's contents or name changing hands (os.fsync has none).
_EVENTS = {"open", "os.rename", "os.remove", "os.truncate", "os.utime", "os.mkdir", "os.chmod"}


def _path(arg: object) -> str | None:
    if isinstance(arg, int):  # a file descriptor: the file it names
        try:
            return os.readlink(f"/proc/self/fd/{arg}")
        except OSError:
            return None
    if isinstance(arg, str | bytes | os.PathLike):
        return os.path.abspath(os.fsdecode(arg))
    return None


def _audit(event: str, args: tuple[object, ...]) -> None:
    if event not in _EVENTS or not _WATCHED or not args:
        return
    if threading.current_thread() is not threading.main_thread():
        return
    path = _path(args[0])
    if path is None:
        return
    for watch in _WATCHED:
        if path.startswith(watch.folder):
            where = "".join(traceback.format_stack(limit=8)[:-2])
            watch.touches.append(f"{event} {path}\n{where}")


sys.addaudithook(_audit)


class LoopTouches:
    """The files under ``folder`` the main thread (the loop's) touched while entered."""

    def __init__(self, folder: os.PathLike[str]) -> None:
        self.folder = os.path.realpath(folder)
        self.touches: list[str] = []

    def __enter__(self) -> LoopTouches:
        _WATCHED.append(self)
        return self

    def __exit__(self, *_exc: object) -> None:
        _WATCHED.remove(self)


AGENT = [
    sys.executable,
    "-c",
    "import sys\nprint('ready>', flush=True)\n"
    "for line in sys.stdin: print('got', line.strip(), flush=True)",
]


def test_the_hook_sees_a_touch_on_this_thread(tmp_path):
    tether = init(tmp_path, goal="count to 400").tether
    with LoopTouches(tmp_path) as seen:
        tether.record_event("test", "test")
    assert seen.touches  # else the test below could not fail


async def test_a_whole_run_touches_no_file_from_the_loop(tmp_path, shell_env):
    work = tmp_path / "work"
    work.mkdir()
    tether = init(work, goal="ship the login endpoint").tether
    config = RunConfig(argv=AGENT, workdir=work, env=shell_env, side_pane=False)
    with LoopTouches(work) as seen:
        app = TetherApp(config)
        app.open_supervision()  # what `tether run` does before the app (cli/run.py)
        seen.touches.clear()  # the lock is taken before the loop runs
        async with app.run_test(size=(100, 30)) as pilot:
            supervision = app.supervision
            await wait_for_screen(pilot, app, r"ready>")
            await pilot.press(*"hello", "enter")
            await wait_for_screen(pilot, app, r"got hello")
            supervision.observe(Observation(COMPACTION, TRANSCRIPT, supervision.clock(), "auto"))
            await wait_until(pilot, lambda: supervision.current_incident is not None)
            # A tick (its reads, the heartbeat, then applied on the loop) saw its checkpoint.
            await wait_until(pilot, lambda: supervision.last_checkpoint is not None, what="tick")
            app.exit(0)
        await until(lambda: not app.is_running, what="the app to end")
    assert seen.touches == [], "\n".join(seen.touches)
    kinds = [e["kind"] for e in read_jsonl(tether.events)[0]]
    assert "incident" in kinds and kinds[-1] == "tether_ended"
    assert (work / ".tether" / "lock").read_text() == ""
    assert sorted(p.suffix for p in (work / ".tether" / "sessions").iterdir()) == [".cast", ".txt"]
