"""The side pane's tabs over a real `.tether/`, driven by Pilot like a person would."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from textual.binding import Binding
from textual.widgets import Button, OptionList, TextArea

from supervisor.store import checkpoints
from supervisor.store import tether_dir as store
from supervisor.store.tether_dir import TetherDir
from supervisor.store.watcher import JsonlFollower, TetherWatcher
from tests import pane_screens
from tests.conftest import wait_for_panes_read, wait_until
from tests.pane_screens import NOTES_AFTER, NOTES_BEFORE, PaneHarness, write_fixture
from widgets.side_pane import SidePane, notes_pane
from widgets.side_pane.checkpoint_list import CheckpointList, ConfirmRestore
from widgets.side_pane.events_log import EventsLog
from widgets.side_pane.notes_pane import NotesPane
from widgets.side_pane.progress_pane import ProgressPane, render_progress

SIZE = (90, 40)
from tests.locations import REPO as ROOT  # noqa: E402


def harness(tmp_path: Path, tab: str = "notes", *, watch: bool = True) -> PaneHarness:
    return PaneHarness(write_fixture(tmp_path), tab, watch=watch)


class Recorder:
    """Collects the messages an app handled, for assertions on what the panes said."""

    def __init__(self) -> None:
        self.messages: list = []

    def __call__(self, message) -> None:
        if not any(message is seen for seen in self.messages):  # bubbling shows it again
            self.messages.append(message)

    def of(self, kind: type) -> list:
        return [m for m in self.messages if isinstance(m, kind)]


async def type_at_end(pilot, text: str) -> None:
    editor = pilot.app.query_one("#notes-editor", TextArea)
    editor.focus()
    editor.move_cursor(editor.document.end)
    await pilot.press(*["enter" if char == "\n" else char for char in text])


def pane_text(pilot, selector: str) -> str:
    return str(pilot.app.query_one(selector).render())


def run_elsewhere(code: str, *args: str) -> None:
    """Run ``code`` in another Python process, as the agent or a hook would write."""
    subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *args], cwd=ROOT, check=True, timeout=30
    )


# -- Notes ------------------------------------------------------------------------------------


async def test_typing_in_notes_is_saved_to_disk_after_the_debounce(tmp_path, monkeypatch):
    monkeypatch.setattr(notes_pane, "SAVE_DEBOUNCE_SECONDS", 60.0)  # however slow the typing
    app = harness(tmp_path)
    seen = Recorder()
    async with app.run_test(size=SIZE, message_hook=seen) as pilot:
        await wait_for_panes_read(pilot)  # the tabs read their files off the loop
        pane = app.query_one(NotesPane)
        await type_at_end(pilot, "- typed by the user")
        assert pane.dirty, "the edit is pending until the debounce"
        assert "typed by the user" not in app.tether.read_notes()
        monkeypatch.setattr(notes_pane, "SAVE_DEBOUNCE_SECONDS", 0.05)
        await type_at_end(pilot, "\n")  # the last key starts the (now short) debounce
        await wait_until(pilot, lambda: not pane.dirty, what="the debounced save")
        assert app.tether.read_notes() == NOTES_AFTER + "- typed by the user\n"
        await wait_until(pilot, lambda: seen.of(NotesPane.Saved), what="the message")
        assert [m.path for m in seen.of(NotesPane.Saved)] == [app.tether.notes]


async def test_quitting_inside_the_debounce_saves_the_last_keys_off_the_loop(tmp_path, monkeypatch):
    from tests.app.test_app_off_loop import LoopTouches

    monkeypatch.setattr(notes_pane, "SAVE_DEBOUNCE_SECONDS", 60.0)  # the app ends first
    app = harness(tmp_path)
    with LoopTouches(tmp_path) as touches:
        async with app.run_test(size=SIZE) as pilot:
            await wait_for_panes_read(pilot)
            await type_at_end(pilot, "- typed just before the quit")
            assert app.query_one(NotesPane).dirty
            touches.touches.clear()  # from here: the quit
    assert app.tether.read_notes() == NOTES_AFTER + "- typed just before the quit"
    assert not [t for t in touches.touches if "notes.md" in t], touches.touches


async def test_a_write_by_another_process_appears_in_the_pane(tmp_path):
    app = harness(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_panes_read(pilot)  # the tabs read their files off the loop
        editor = app.query_one("#notes-editor", TextArea)
        editor.move_cursor((2, 3))
        run_elsewhere(
            "import sys; from supervisor.store.tether_dir import TetherDir\n"
            "TetherDir.at(sys.argv[1]).add_note('done', 'exports 380-400')",
            str(tmp_path),
        )
        await wait_until(pilot, lambda: "- exports 380-400" in editor.text, what="the new line")
        assert editor.text == app.tether.read_notes()
        assert editor.cursor_location == (2, 3), "an external change does not move the cursor"
        assert not app.query_one(NotesPane).dirty


@pytest.mark.parametrize("choice", ["disk", "mine", "merge"])
async def test_a_conflict_shows_both_versions_and_writes_only_the_users_choice(
    tmp_path, monkeypatch, choice
):
    monkeypatch.setattr(notes_pane, "SAVE_DEBOUNCE_SECONDS", 60.0)  # the user is mid-edit
    app = harness(tmp_path)
    seen = Recorder()
    async with app.run_test(size=SIZE, message_hook=seen) as pilot:
        await wait_for_panes_read(pilot)  # the tabs read their files off the loop
        pane = app.query_one(NotesPane)
        await type_at_end(pilot, "- mine, unsaved\n")
        app.tether.add_note("done", "theirs, from the agent")
        disk = app.tether.read_notes()
        await wait_until(pilot, lambda: pane.conflicted, what="the conflict")
        assert app.tether.read_notes() == disk, "nothing is written while in conflict"
        assert app.query_one("#notes-disk", TextArea).text == disk
        assert "- mine, unsaved" in pane.editor.text
        assert "theirs, from the agent" not in pane.editor.text
        assert app.query_one("#notes-conflict").display
        await wait_until(pilot, lambda: seen.of(NotesPane.Conflict), what="the message")
        [conflict] = seen.of(NotesPane.Conflict)
        assert conflict.disk == disk and "- mine, unsaved" in conflict.mine

        button = {"disk": "#notes-keep-disk", "mine": "#notes-keep-mine", "merge": "#notes-merge"}
        app.query_one(button[choice], Button).press()  # as a click does, wherever it is drawn
        # the choice is saved off the loop: wait for it to be written
        await wait_until(pilot, lambda: not pane.conflicted and not pane.dirty, what="the save")
        written = app.tether.read_notes()
        assert written == pane.editor.text
        await wait_until(pilot, lambda: seen.of(NotesPane.Resolved), what="the message")
        assert [m.choice for m in seen.of(NotesPane.Resolved)] == [choice]
        if choice == "disk":
            assert written == disk
        elif choice == "mine":
            assert written == NOTES_AFTER + "- mine, unsaved\n"
        else:
            assert "- theirs, from the agent" in written and "- mine, unsaved" in written
            for line in disk.split("\n") + NOTES_AFTER.split("\n"):
                assert line in written.split("\n")
        assert pane.editor.has_focus, "the user goes on typing where they were"


async def test_a_save_finds_a_change_the_watcher_has_not_reported(tmp_path):
    app = harness(tmp_path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_panes_read(pilot)  # the tabs read their files off the loop
        pane = app.query_one(NotesPane)
        await type_at_end(pilot, "mine")
        app.tether.add_note("done", "theirs")
        disk = app.tether.read_notes()
        pane.save_now()
        await wait_until(pilot, lambda: pane.conflicted, what="the save's look at the disk")
        assert app.tether.read_notes() == disk


async def test_task_md_is_edited_in_the_same_pane(tmp_path):
    app = harness(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_panes_read(pilot)  # the tabs read their files off the loop
        pane = app.query_one(NotesPane)
        await pilot.click("#file-task")
        assert pane.editing == "task.md"
        assert pane.editor.text == app.tether.read_task()
        await type_at_end(pilot, "- a new constraint\n")
        await wait_until(pilot, lambda: not pane.dirty, what="the save")
        assert app.tether.read_task().endswith("- a new constraint\n")
        assert app.tether.read_notes() == NOTES_AFTER


async def test_a_binary_notes_file_is_named_in_the_pane_and_never_overwritten(tmp_path):
    tether = write_fixture(tmp_path)
    binary = b"\x00\xff\xfe binary \x89PNG\r\n"
    tether.notes.write_bytes(binary)
    app = PaneHarness(tether, "notes", watch=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_panes_read(pilot)  # the tabs read their files off the loop
        pane = app.query_one(NotesPane)
        message = str(app.query_one("#notes-message").render())
        assert str(tether.notes) in message and "not UTF-8" in message
        assert not pane.editor.display
        await pilot.press("x", "y")
        await pilot.pause()
        assert tether.notes.read_bytes() == binary
        tether.write_notes("# Notes\n\nfixed\n")
        await wait_until(pilot, lambda: pane.editor.text == "# Notes\n\nfixed\n", what="reload")
        assert pane.editor.display and not pane.has_class("-problem")


async def test_f_keys_pass_through_the_editor_to_the_app(tmp_path):
    class WithKeys(PaneHarness):
        BINDINGS = [Binding(f"f{n}", f"pressed('f{n}')") for n in range(6, 11)]

        def __init__(self, tether):
            super().__init__(tether, "notes")
            self.pressed: list[str] = []

        def action_pressed(self, key: str) -> None:
            self.pressed.append(key)

    app = WithKeys(write_fixture(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_panes_read(pilot)  # the tabs read their files off the loop
        editor = app.query_one("#notes-editor", TextArea)
        editor.focus()
        await pilot.press("f6", "f7", "f8", "f9", "f10")
        assert app.pressed == ["f6", "f7", "f8", "f9", "f10"]
        assert editor.text == NOTES_AFTER


# -- Progress ---------------------------------------------------------------------------------


async def test_progress_pane_states_the_textbook_violation_in_words(tmp_path):
    app = harness(tmp_path, "progress")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_panes_read(pilot)  # the tabs read their files off the loop
        pane = app.query_one(ProgressPane)
        assert pane.result is not None and pane.result.kind == "cursor-ahead"
        text = pane_text(pilot, "#progress")
        assert "Invariant violated" in text
        assert "progress says cursor 381, artifacts end at index 379" in text
        assert "Artifacts 380 (last index 379)" in text
        assert "sets the cursor to 380" in text
        rendered = render_progress(app.tether.read_progress(), pane.result)
        red = [rendered.plain[s.start : s.end] for s in rendered.spans if s.style == "bold red"]
        assert "✗ Invariant violated: cursor ahead of the artifacts\n" in red
        assert "381\n" in red, "the cursor is shown in red"


async def test_progress_pane_follows_a_fix_and_warns_of_batching(tmp_path):
    app = harness(tmp_path, "progress")
    seen = Recorder()
    async with app.run_test(size=SIZE, message_hook=seen) as pilot:
        await wait_for_panes_read(pilot)  # the tabs read their files off the loop
        pane = app.query_one(ProgressPane)
        progress = app.tether.read_progress()
        progress.cursor = 380
        progress.updated_at = "2026-05-01T10:00:00.000Z"  # before the last artifact
        app.tether.write_progress(progress, touch=False)
        await wait_until(pilot, lambda: pane.result.kind == "batching", what="batching")
        assert "the agent is batching" in pane_text(pilot, "#progress")
        app.tether.set_progress(cursor=380)
        await wait_until(pilot, lambda: pane.result.ok, what="the invariant to hold")
        assert "Invariant holds" in pane_text(pilot, "#progress")
        # A message posted as a read is applied is handled a moment after the state it names.
        await wait_until(
            pilot, lambda: len(seen.of(ProgressPane.InvariantChanged)) >= 3, what="the messages"
        )
        kinds = [m.result.kind for m in seen.of(ProgressPane.InvariantChanged)]
        assert kinds == ["cursor-ahead", "batching", "ok"]


async def test_a_malformed_progress_file_is_named_and_the_app_keeps_running(tmp_path):
    tether = write_fixture(tmp_path)
    tether.progress.write_text('{"cursor": 381,\n "phase": ')
    app = PaneHarness(tether, "progress", watch=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_panes_read(pilot)  # the tabs read their files off the loop
        text = pane_text(pilot, "#progress")
        assert "progress.json cannot be read" in text
        assert f"{tether.progress}:2" in text and "not valid JSON" in text
        app.query_one(SidePane).show_tab("notes")
        await pilot.pause()
        tether.progress.write_text('{"cursor": 380, "updated_at": "2026-05-01T11:00:00Z"}')
        pane = app.query_one(ProgressPane)
        await wait_until(pilot, lambda: pane.result.kind == "ok", what="recovery")


# -- Checkpoints ------------------------------------------------------------------------------


async def test_checkpoints_are_listed_newest_first_and_previewed(tmp_path):
    app = harness(tmp_path, "checkpoints")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_panes_read(pilot)  # the tabs read their files off the loop
        options = app.query_one("#cp-list", OptionList)
        labels = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert labels[0].startswith("#2") and "incident 1" in labels[0]
        assert labels[1].startswith("#1") and "timer" in labels[1]
        assert "checkpoint #2" in pane_text(pilot, "#cp-title")
        options.focus()
        await pilot.press("down")
        assert app.query_one(CheckpointList).highlighted == 1
        preview = pane_text(pilot, "#cp-view")
        assert "export 201 onwards" in preview and "── notes.md ──" in preview


async def test_checkpoint_diffs_against_the_live_state_and_another_checkpoint(tmp_path):
    app = harness(tmp_path, "checkpoints")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_panes_read(pilot)  # the tabs read their files off the loop
        app.tether.add_note("done", "live only")
        app.query_one("#cp-list", OptionList).focus()
        await pilot.press("l")  # worked out in a thread: wait for it
        title = "diff #2 → live"
        await wait_until(pilot, lambda: title in pane_text(pilot, "#cp-title"), 10, title)
        view = pane_text(pilot, "#cp-view")
        assert "+- live only" in view
        await pilot.press("m", "down", "d")
        title = "diff #1 → #2"
        await wait_until(pilot, lambda: title in pane_text(pilot, "#cp-title"), 10, title)
        view = pane_text(pilot, "#cp-view")
        assert "+- exports 201-379" in view and "-export 201 onwards" in view
        assert "live only" not in view


async def test_restore_asks_first_and_checkpoints_the_state_it_replaces(tmp_path):
    app = harness(tmp_path, "checkpoints")
    seen = Recorder()
    async with app.run_test(size=SIZE, message_hook=seen) as pilot:
        await wait_for_panes_read(pilot)  # the tabs read their files off the loop
        app.query_one("#cp-list", OptionList).focus()
        await pilot.press("down", "r")
        assert isinstance(app.screen, ConfirmRestore)
        await pilot.press("n")
        assert app.tether.read_notes() == NOTES_AFTER
        await pilot.press("r")
        await pilot.press("y")
        await wait_until(pilot, lambda: seen.of(CheckpointList.Restored), 15, "the restore")
        [restored] = seen.of(CheckpointList.Restored)
        assert (restored.seq, restored.safety_seq) == (1, 3)
        assert app.tether.read_notes() == NOTES_BEFORE
        assert app.tether.read_progress().cursor == 201
        safety = checkpoints.load(app.tether, 3)
        assert safety.reason == "before restore of 1" and safety.notes == NOTES_AFTER
        notes = app.query_one(NotesPane)
        await wait_until(pilot, lambda: notes.editor.text == NOTES_BEFORE, what="notes reload")
        options = app.query_one("#cp-list", OptionList)
        await wait_until(pilot, lambda: options.option_count == 3, what="the new checkpoint")


# -- Events -----------------------------------------------------------------------------------


async def test_the_events_log_shows_the_supervisors_repairs_and_the_gaps_it_found(tmp_path):
    app = harness(tmp_path, "events")
    async with app.run_test(size=(150, 40)) as pilot:
        await wait_for_panes_read(pilot)  # the tabs read their files off the loop
        log = app.query_one(EventsLog)
        await wait_until(pilot, lambda: log.shown_lines, what="the history")
        cursor = app.tether.read_progress().cursor
        run_elsewhere(  # a supervisor in its own process: the agent skipped an index
            """
            import sys
            from supervisor.run.supervision import RunConfig, Supervision
            from supervisor.store.tether_dir import TetherDir
            from supervisor.terminal.session import AgentSession
            from tests.store_records import append_artifact
            tether = TetherDir.at(sys.argv[1])
            last = tether.last_artifact()[0]["index"]
            append_artifact(tether, index=last + 2)
            supervision = Supervision(
                RunConfig(argv=["true"], workdir=sys.argv[1]), AgentSession(["true"])
            )
            supervision.open()
            supervision.close()
            """,
            str(tmp_path),
        )
        last = app.tether.last_artifact()[0]["index"]

        def shown() -> str:
            return "\n".join(log.shown_lines)

        await wait_until(pilot, lambda: "artifacts:" in shown(), what="the gap")
        assert f"index {last} follows {last - 2}: index {last - 1} is missing" in shown()
        assert f"cursor fixed: {cursor} → {last + 1} (cursor behind)" in shown()  # rolled


async def test_the_events_log_shows_an_event_another_process_appends(tmp_path):
    app = harness(tmp_path, "events")
    seen = Recorder()
    async with app.run_test(size=SIZE, message_hook=seen) as pilot:
        await wait_for_panes_read(pilot)  # the tabs read their files off the loop
        log = app.query_one(EventsLog)
        await wait_until(pilot, lambda: log.shown_lines, what="the history")
        text = "\n".join(log.shown_lines)
        assert "10:02:14  #1 ⚠ context compacted (auto), seen by screen, hook, transcript" in text
        assert "10:02:15     cursor fixed: 381 → 380 (cursor ahead)" in text
        run_elsewhere(
            "import sys; from supervisor.store.tether_dir import TetherDir\n"
            "TetherDir.at(sys.argv[1]).record_incident('wipe', 'screen', trigger='manual')",
            str(tmp_path),
        )
        await wait_until(
            pilot, lambda: "#2 ⚠ context wiped" in "\n".join(log.shown_lines), what="the new event"
        )
        assert log.shown_lines[-1].endswith("#2 ⚠ context wiped (manual), seen by screen")
        await wait_until(pilot, lambda: seen.of(EventsLog.IncidentSeen), what="the message")
        [incident] = seen.of(EventsLog.IncidentSeen)
        assert incident.event["number"] == 2


# -- The side pane ----------------------------------------------------------------------------


async def test_a_missing_tether_folder_is_said_and_the_tabs_fill_in_when_it_appears(tmp_path):
    app = PaneHarness(TetherDir.at(tmp_path), "notes", watch=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_panes_read(pilot)  # the tabs read their files off the loop
        side = app.query_one(SidePane)
        assert side.has_class("-missing")
        assert "No .tether/" in pane_text(pilot, "#side-missing")
        assert "notes.md is missing" in pane_text(pilot, "#notes-message")
        store.init(tmp_path, goal="ship it")
        pane = app.query_one(NotesPane)
        await wait_until(pilot, lambda: "## Phase" in pane.editor.text, what="the notes")
        assert not side.has_class("-missing")
        await type_at_end(pilot, "typed after init\n")
        await wait_until(pilot, lambda: not pane.dirty, what="the save")
        assert app.tether.read_notes().endswith("typed after init\n")


async def test_f9_moves_focus_between_the_terminal_and_the_notes_editor(tmp_path, shell_env):
    from supervisor.app import RunConfig, TetherApp

    write_fixture(tmp_path)
    config = RunConfig(
        argv=["bash", "--norc", "--noprofile"], workdir=tmp_path, env=shell_env, side_pane=True
    )
    app = TetherApp(config)
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_for_panes_read(pilot)  # the tabs read their files off the loop
        # The side pane mounts after the app's first frame.
        await wait_until(
            pilot,
            lambda: app.query(SidePane) and app.query_one(SidePane).is_mounted,
            what="the side pane",
        )
        assert app.terminal.has_focus
        side = app.query_one(SidePane)
        assert side.size.width >= 40
        editor = app.query_one("#notes-editor", TextArea)
        await pilot.press("f9")
        await wait_until(pilot, lambda: app.focused is editor, what="the editor's focus")
        await pilot.press(*"x")
        await pilot.press("f9")
        await wait_until(pilot, lambda: app.terminal.has_focus, what="the agent's keys")


# -- The engine parts the panes rely on -------------------------------------------------------


def _wait_to_be_seen(path: Path, seen: list[Path], seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while path not in seen and time.monotonic() < deadline:
        time.sleep(0.05)


def test_the_watcher_reports_each_file_once_per_burst_and_never_temp_files(tmp_path):
    seen: list[Path] = []
    watcher = TetherWatcher(tmp_path, seen.append, debounce=0.2)
    watcher.start()
    try:
        target = tmp_path / "notes.md"
        for n in range(5):
            store.fsio.atomic_write_text(target, f"version {n}\n")
        (tmp_path / ".scratch.tmp").write_text("ignored")
        _wait_to_be_seen(target, seen)
        time.sleep(0.5)
    finally:
        watcher.stop()
        watcher.stop()  # safe twice
    assert seen.count(target) == 1
    assert not [p for p in seen if p.name.endswith(".tmp")]
    assert not watcher.running


def test_a_folder_that_never_goes_quiet_still_reports_the_other_files(tmp_path):
    """A file written without a pause must not hold back the news of the others."""
    seen: list[Path] = []
    watcher = TetherWatcher(tmp_path, seen.append, debounce=0.1, max_wait=0.5)
    recording = tmp_path / "events.jsonl"  # appended to without a pause
    target = tmp_path / "notes.md"
    watcher.start()
    try:
        with open(recording, "a") as cast:
            store.fsio.atomic_write_text(target, "a change in the middle of a flood\n")
            deadline = time.monotonic() + 4
            while target not in seen and time.monotonic() < deadline:
                cast.write("x" * 100 + "\n")
                cast.flush()
                time.sleep(0.02)  # never 100 ms of quiet
            still_writing = time.monotonic() < deadline
    finally:
        watcher.stop()
    assert target in seen and still_writing


def test_the_watcher_follows_checkpoints_but_not_the_recordings(tmp_path):
    seen: list[Path] = []
    watcher = TetherWatcher(tmp_path, seen.append, debounce=0.05)
    (tmp_path / "sessions").mkdir()
    watcher.start()
    try:
        (tmp_path / "sessions" / "now.cast").write_text("output the panes never show\n")
        checkpoint = tmp_path / "checkpoints" / "000001.json"
        checkpoint.parent.mkdir()  # created after the watch began
        _wait_to_be_seen(checkpoint.parent, seen)  # reported once its own watch is placed
        store.fsio.atomic_write_text(checkpoint, "{}\n")
        _wait_to_be_seen(checkpoint, seen)
        time.sleep(0.2)
    finally:
        watcher.stop()
    assert checkpoint in seen
    assert not [p for p in seen if "sessions" in p.parts]


def test_the_follower_reads_only_new_whole_lines(tmp_path):
    path = tmp_path / "events.jsonl"
    path.write_text('{"n": 1}\n{"n": 2}\n')
    follower = JsonlFollower(path)
    assert [e["n"] for e in follower.start(1)] == [2]
    with open(path, "a") as handle:
        handle.write('{"n": 3}\n{"n": ')
    assert [e["n"] for e in follower.read_new()] == [3]
    with open(path, "a") as handle:
        handle.write("4}\n")
    assert [e["n"] for e in follower.read_new()] == [4]
    assert follower.read_new() == []


def test_pane_screenshots_are_written(tmp_path):
    paths = pane_screens.make_pane_screenshots(tmp_path)
    assert sorted(p.name for p in paths) == [
        "checkpoints-pane.svg",
        "events-pane.svg",
        "notes-pane.svg",
        "progress-pane.svg",
    ]
    assert all(p.read_text().startswith("<svg") for p in paths)


async def test_a_checkpoint_diff_is_worked_out_off_the_event_loop(tmp_path, monkeypatch):
    """200,000 headings froze the app 328 s when `l` diffed on the loop."""
    import threading

    threads: list[threading.Thread] = []
    real_diff = checkpoints.diff

    def diff_noting_its_thread(old, new):
        threads.append(threading.current_thread())
        return real_diff(old, new)

    monkeypatch.setattr(checkpoints, "diff", diff_noting_its_thread)
    app = harness(tmp_path, "checkpoints")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_panes_read(pilot)  # the tabs read their files off the loop
        app.query_one("#cp-list", OptionList).focus()
        await pilot.press("l")
        title = "diff #2 → live"
        await wait_until(pilot, lambda: title in pane_text(pilot, "#cp-title"), 10, title)
    assert threads and threading.main_thread() not in threads
