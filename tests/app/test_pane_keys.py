"""Every side-pane action by keys alone, in the whole app beside a real shell: focus never
leaves the pane without F9, the tabs switch by key, the footer shows the focused pane's keys."""

from __future__ import annotations

import pytest
from textual.widgets import TabbedContent, TextArea

from supervisor.app import RunConfig, TetherApp
from supervisor.store import checkpoints
from tests.app.test_panes import Recorder
from tests.conftest import wait_for_panes_read, wait_until
from tests.pane_screens import write_fixture
from widgets.side_pane import SidePane, notes_pane
from widgets.side_pane.checkpoint_list import CheckpointList, ConfirmRestore
from widgets.side_pane.events_log import EventsLog
from widgets.side_pane.notes_pane import NotesPane

BASH = ["bash", "--norc", "--noprofile"]


def make_app(tmp_path, shell_env) -> TetherApp:
    write_fixture(tmp_path)
    config = RunConfig(argv=BASH, workdir=tmp_path, env=shell_env, side_pane=True)
    return TetherApp(config)


async def to_tab(pilot, app: TetherApp, name: str) -> None:
    """The next-tab key until ``name`` is in front (from Notes: Progress, Checkpoints, Events)."""
    tabs = app.query_one(TabbedContent)
    for _ in range(4):
        if tabs.active == f"tab-{name}":
            return
        shown = tabs.active
        await pilot.press("ctrl+pagedown")  # handled when the tab changed, not after a pause
        await wait_until(pilot, lambda s=shown: tabs.active != s, what="the next tab")
    assert tabs.active == f"tab-{name}"


async def into_the_pane(pilot, app: TetherApp) -> SidePane:
    await wait_until(
        pilot, lambda: app.query(SidePane) and app.query_one(SidePane).is_mounted, what="the pane"
    )
    # A loaded machine: a pause does not mean the keys were handled (Textual's idle test
    # reads a starved process as idle), so each step waits for what it brings.
    await wait_until(pilot, lambda: app.focused is app.terminal, what="the agent's keys")
    side = app.query_one(SidePane)
    await pilot.press("f9")
    await wait_until(pilot, lambda: side.has_focus_within, what="the pane's keys")
    return side


async def through_the_queue(pilot, app: TetherApp, rounds: int = 3) -> None:
    """Wait until the app has handled what was posted to it so far, and what that posted
    in turn (``rounds`` deep): a callback queued behind it has run. Pauses do not show it
    on a loaded machine (Textual's idle test reads a starved process as idle)."""
    for _ in range(rounds):
        ran: list[bool] = []
        app.call_later(ran.append, True)
        await wait_until(pilot, lambda r=ran: bool(r), what="the app's queue")


def footer_actions(app: TetherApp) -> set[str]:
    """The actions the footer shows now (the focused widget's chain and the app's own)."""
    return {
        binding.action
        for (_node, binding, _enabled, _tip) in app.active_bindings.values()
        if binding.show
    }


@pytest.mark.parametrize("size", [(80, 24), (120, 40), (200, 50)])
async def test_tab_cycles_inside_the_pane_and_never_hands_keys_to_the_agent(
    tmp_path, shell_env, size
):
    app = make_app(tmp_path, shell_env)
    async with app.run_test(size=size) as pilot:
        await wait_for_panes_read(pilot)  # the tabs read their files off the loop
        side = await into_the_pane(pilot, app)
        visited = set()
        for key in ["tab"] * 8 + ["shift+tab"] * 8:
            before = app.focused
            await pilot.press(key)  # each press moves the focus: wait for it to have moved
            await wait_until(pilot, lambda b=before: app.focused is not b, what=f"{key}'s move")
            assert side.has_focus_within, f"{key} took focus out of the pane"
            assert not app.terminal.has_focus
            visited.add(app.focused.id)
        assert {"notes-editor", "file-notes", "file-task"} <= visited
        await pilot.press("f9")
        await wait_until(pilot, lambda: app.terminal.has_focus, what="the agent's keys")


async def test_tabs_switch_by_key_and_the_footer_shows_the_focused_panes_keys(tmp_path, shell_env):
    app = make_app(tmp_path, shell_env)
    async with app.run_test(size=(200, 50)) as pilot:
        await wait_for_panes_read(pilot)  # the tabs read their files off the loop
        assert "next_tab" not in footer_actions(app)  # the agent has the keys
        side = await into_the_pane(pilot, app)
        tabs = app.query_one(TabbedContent)
        assert {"next_tab", "previous_tab", "rehydrate"} <= footer_actions(app)
        for name in ["progress", "checkpoints", "events", "notes"]:
            await pilot.press("ctrl+pagedown")
            await wait_until(pilot, lambda n=name: tabs.active == f"tab-{n}", what=name)
            assert side.has_focus_within
        await pilot.press("ctrl+pageup")
        await wait_until(pilot, lambda: "select" in footer_actions(app), what="the events' keys")
        assert tabs.active == "tab-events"  # Enter: all the fields of the row
        await pilot.press("alt+left")  # back to Checkpoints, the other way round
        keys = {"diff_live", "mark", "diff_marked", "restore"}
        await wait_until(pilot, lambda: keys <= footer_actions(app), what="the checkpoints' keys")
        assert tabs.active == "tab-checkpoints"
        await pilot.press("alt+right", "alt+right")
        editor = app.query_one("#notes-editor")
        await wait_until(pilot, lambda: app.focused is editor, what="the editor's focus")


async def test_checkpoints_are_diffed_and_restored_by_keys_alone(tmp_path, shell_env):
    app = make_app(tmp_path, shell_env)
    seen = Recorder()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await wait_for_panes_read(pilot)  # the tabs read their files off the loop
        await into_the_pane(pilot, app)
        await to_tab(pilot, app, "checkpoints")
        listing = app.query_one(CheckpointList)
        await wait_until(pilot, lambda: listing.has_focus_within, what="the list's focus")
        assert listing.highlighted == 2
        await pilot.press("l")  # diff #2 against the live state
        await pilot.press("m", "down", "d")  # mark #2, go to #1, diff against the mark

        def shown() -> list[tuple]:
            return [(m.what, m.seq, m.other) for m in seen.of(CheckpointList.Shown)]

        await wait_until(pilot, lambda: ("diff", 2, 1) in shown(), what="the diffs")  # a thread's
        assert ("diff", 2, None) in shown() and ("diff", 2, 1) in shown()  # older first
        await pilot.press("r")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmRestore), what="the question")
        await pilot.press("y")
        await wait_until(pilot, lambda: seen.of(CheckpointList.Restored), what="the restore")
        assert seen.of(CheckpointList.Restored)[0].seq == 1
        assert len(checkpoints.list_seqs(app.supervision.tether)) >= 3  # the safety one


async def test_the_events_tab_by_keys_shows_every_field_of_the_row(tmp_path, shell_env):
    app = make_app(tmp_path, shell_env)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_panes_read(pilot)  # the tabs read their files off the loop
        await into_the_pane(pilot, app)
        await to_tab(pilot, app, "events")
        log = app.query_one(EventsLog)
        await wait_until(pilot, lambda: log.has_focus_within, what="the list's focus")
        decision = next(i for i, event in enumerate(log.events) if "7443" in str(event.get("text")))
        for _ in range(len(log.events)):  # at most one press a row: a lost key fails here
            if log.options.highlighted == decision:
                break
            row = log.options.highlighted
            await pilot.press("up")
            await wait_until(pilot, lambda r=row: log.options.highlighted != r, what="a row up")
        assert log.options.highlighted == decision, (log.options.highlighted, app.focused)
        fields = str(app.query_one("#events-fields").render())
        assert "text: use port 7443 for the admin API because 8443 is taken by the proxy" in (
            " ".join(fields.split())
        )
        detail = app.query_one("#events-detail")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.focused is detail, what="the row's detail")
        await pilot.press("escape")  # back to the rows, still in the pane
        await wait_until(pilot, lambda: app.focused is log.options, what="the rows")


async def test_a_conflict_is_resolved_with_tab_and_enter(tmp_path, shell_env, monkeypatch):
    monkeypatch.setattr(notes_pane, "SAVE_DEBOUNCE_SECONDS", 60.0)  # the user is mid-edit
    app = make_app(tmp_path, shell_env)
    seen = Recorder()
    async with app.run_test(size=(200, 50), message_hook=seen) as pilot:
        await wait_for_panes_read(pilot)  # the tabs read their files off the loop
        await into_the_pane(pilot, app)
        pane = app.query_one(NotesPane)
        editor = app.query_one("#notes-editor", TextArea)
        await wait_until(pilot, lambda: "## Phase" in editor.text, what="the notes")
        await pilot.press("ctrl+end", *"- mine", "enter")
        app.supervision.tether.add_note("done", "theirs, from the agent")
        await wait_until(pilot, lambda: pane.conflicted, what="the conflict")
        for _ in range(12):
            if app.focused is app.query_one("#notes-merge"):
                break
            before = app.focused
            await pilot.press("shift+tab")
            await wait_until(pilot, lambda b=before: app.focused is not b, what="the focus move")
        assert app.focused is app.query_one("#notes-merge")
        await pilot.press("enter")
        await wait_until(pilot, lambda: seen.of(NotesPane.Resolved), what="the resolution")
        assert [m.choice for m in seen.of(NotesPane.Resolved)] == ["merge"]
        assert not pane.conflicted


async def test_a_look_at_a_hidden_pane_survives_its_own_dialogs(tmp_path, shell_env):
    from widgets.side_slot import SideSlot

    app = make_app(tmp_path, shell_env)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_panes_read(pilot)  # the tabs read their files off the loop
        await into_the_pane(pilot, app)  # F9 on a hidden pane: a look
        slot = app.query_one(SideSlot)
        assert slot.peeking
        await to_tab(pilot, app, "checkpoints")
        listing = app.query_one(CheckpointList)
        await wait_until(pilot, lambda: listing.has_focus_within, what="the list's focus")
        await pilot.press("r")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmRestore), what="the question")
        await pilot.press("n")
        await wait_until(pilot, lambda: listing.has_focus_within, what="the focus back in the list")
        await pilot.pause(0.2)  # a while for the look to end, which it must not
        assert slot.display and slot.peeking and listing.has_focus_within


async def test_a_tab_brought_forward_stays_in_front_and_takes_the_focus(tmp_path, shell_env):
    """Textual hands the focus of a widget it hides to a sibling in the same tab, and a
    focused widget brings its tab back: the switch must not be undone."""
    app = make_app(tmp_path, shell_env)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_panes_read(pilot)  # the tabs read their files off the loop
        side = await into_the_pane(pilot, app)
        tabs = app.query_one(TabbedContent)
        await to_tab(pilot, app, "checkpoints")
        listing = app.query_one(CheckpointList)
        await wait_until(pilot, lambda: listing.has_focus_within, what="the list's focus")
        for name in ("events", "checkpoints", "notes", "events", "progress"):
            side.show_tab(name)  # as the app brings one up, the user in the pane
            for _ in range(5):  # a few turns: long enough for Textual to undo it
                await pilot.pause()
            assert tabs.active == f"tab-{name}"
            assert app.focused in app.screen.focus_chain, app.focused  # in sight
            assert side.has_focus_within


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_with_the_pane_focused_the_footer_still_shows_the_way_back_and_quit(
    tmp_path, shell_env, size
):
    """The pane's keys come after tether's own in the footer: they used to come first and
    push F9 (the way back to the agent) and F10 past the right edge of an 80- or
    120-column terminal."""
    from textual.widgets._footer import FooterKey

    app = make_app(tmp_path, shell_env)
    async with app.run_test(size=size) as pilot:
        await wait_for_panes_read(pilot)  # the tabs read their files off the loop
        await into_the_pane(pilot, app)
        await to_tab(pilot, app, "checkpoints")

        def shown() -> set[str]:
            width = app.size.width
            return {
                key.action
                for key in app.query(FooterKey)
                if key.region.width and key.region.right <= width
            }

        await wait_until(pilot, lambda: "diff_live" in footer_actions(app), what="the pane's keys")
        wanted = {"switch_focus", "request_quit", "rehydrate"}
        await wait_until(pilot, lambda: wanted <= shown(), what=f"{wanted} in the footer")


async def test_f9_twice_in_one_read_goes_to_the_pane_and_back(tmp_path, shell_env):
    """Two F9s that arrive together (pressed quickly, or held) are two switches: the
    second used to see the focus the first had asked for but not yet moved, and left the
    keys in the pane, where the next line typed went into notes.md."""
    from textual import events

    app = make_app(tmp_path, shell_env)
    async with app.run_test(size=(200, 50)) as pilot:
        await wait_for_panes_read(pilot)  # the tabs read their files off the loop
        await wait_until(
            pilot, lambda: app.query(SidePane) and app.query_one(SidePane).is_mounted, what="pane"
        )
        assert app.terminal.has_focus
        app.post_message(events.Key("f9", None))  # as the driver's input thread posts them
        app.post_message(events.Key("f9", None))
        await through_the_queue(pilot, app)
        assert app.focused is app.terminal, app.focused
        await wait_until(pilot, lambda: app.terminal.has_focus, what="the agent's Focus")
        side = await into_the_pane(pilot, app)
        app.post_message(events.Key("f9", None))
        app.post_message(events.Key("f9", None))
        await through_the_queue(pilot, app)
        assert side.has_focus_within, app.focused
