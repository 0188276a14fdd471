"""The Textual app: the one place that composes the engine and the widgets.

Left, the agent's terminal (every key goes to it) under the loss banner;
right, the side pane; a status bar and the footer with tether's few keys.
Data flows one way: the session's output goes to the view and, through
:class:`Supervision`, to the detectors, fusion and the injector; what the user is
to be told is decided by the engine's attention model, whose states reach the app
as messages from one :class:`EngineLink`; the app only renders them in the banner
and the status bar (and rings the user back on incidents); the panes show `.tether/`.
"""

from __future__ import annotations

import asyncio
import functools
import gc
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.driver import Driver
from textual.events import Resize
from textual.message import Message

from supervisor.app_keys import RecoveryKeys
from supervisor.config.keymap import Keymap
from supervisor.engine_link import EngineLink
from supervisor.errors import TetherError
from supervisor.raw_input_driver import RawInput
from supervisor.run.attention import Attention
from supervisor.run.attention_model import AttentionState
from supervisor.run.hangup import Hangups, ShutdownDeadline
from supervisor.run.launch import EarlyStart, new_supervision
from supervisor.run.supervision import RunConfig
from supervisor.run.tick_pump import TickPump
from supervisor.run.tick_reads import TickReads
from supervisor.store.checkpoints import Checkpoint
from supervisor.store.tether_dir import TetherDir
from widgets.key_footer import KeyFooter
from widgets.loss_banner import LossBanner
from widgets.plain_notify import PlainNotifyApp
from widgets.side_slot import SideSlot
from widgets.status_bar import StatusBar
from widgets.terminal_view import TerminalView

if TYPE_CHECKING:
    from widgets.side_pane import SidePane

# The side pane, the payload preview and the quit dialog are imported when first shown:
# the side pane mounts after the first frame, so the agent's terminal is up sooner.

__all__ = ["RunConfig", "TetherApp", "run_app"]

TICK_SECONDS = 0.25  # the poll; the side pane's watcher wakes a read sooner (see below)
# tether's keys: priority bindings, checked before the terminal gets the key. The keys
# here are the defaults; the user's keys.toml reaches them by id through set_keymap.
KEYS = Keymap()
# Short words, in key order, so that all of them fit the footer of an 80-column terminal.
ACTIONS = {  # Keymap field -> (action, footer text)
    "compact": ("compact", "Compact"),
    "side_pane": ("toggle_pane", "Pane"),
    "rehydrate": ("rehydrate", "Rehydrate"),
    "preview": ("preview", "Preview"),
    "checkpoint": ("checkpoint", "Snapshot"),
    "switch_focus": ("switch_focus", "Focus"),
    "quit": ("request_quit", "Quit"),
    "pin_dropped": ("pin_dropped", "Pin"),
    # Only while a dead tether's agent still runs (check_action); else the key is the agent's.
    "end_orphan": ("end_orphan", "End left-over agent"),
}


def _binding_id(name: str) -> str:
    return f"tether.{name}"


M = TypeVar("M", bound=Message)


def _while_running(
    handler: Callable[[TetherApp, M], None],
) -> Callable[[TetherApp, M], None]:
    """Textual drains the app's message queue after it removed the widgets (App._shutdown):
    a message handled then has no widget left to update, and must not start anything."""

    @functools.wraps(handler)
    def guarded(self: TetherApp, message: M) -> None:
        if self.is_running:
            handler(self, message)

    return guarded


class DriverSlot:
    """The driver Textual made for this app, to write the user's alerts to their terminal
    (Textual keeps its own reference private; ``get_driver_class`` is its public door)."""

    def __init__(self) -> None:
        self.driver: Driver | None = None

    def remembering(self, base: type[Driver]) -> type[Driver]:
        """A thin subclass of ``base`` whose instance this slot holds."""
        slot = self

        class Remembered(base):  # type: ignore[valid-type,misc]
            def __init__(self, *args: Any, **kwargs: Any) -> None:
                super().__init__(*args, **kwargs)
                slot.driver = self

        return Remembered


class TetherApp(PlainNotifyApp, inherit_bindings=False):
    """Supervises one agent session."""

    ENABLE_COMMAND_PALETTE = False
    _view: TerminalView  # the agent's terminal, from on_mount on (repainted per message)
    CSS = """
    Screen { layout: vertical; }
    #main { height: 1fr; }
    #agent { width: 1fr; height: 1fr; }
    #side-slot > SidePane { width: 1fr; min-width: 0; }
    """
    # Textual's own ctrl+q / ctrl+c bindings would steal keys the agent needs.
    BINDINGS = [
        Binding(getattr(KEYS, name), action, text, priority=True, id=_binding_id(name))
        for name, (action, text) in ACTIONS.items()
    ]

    def __init__(
        self, config: RunConfig, early: EarlyStart | None = None, hangups: Hangups | None = None
    ) -> None:
        """``early``: the agent `tether run` already spawned; else it starts once the
        terminal view knows its size. ``hangups``: a real run's SIGHUP and SIGTERM (hangup.py)."""
        self._terminal_out = DriverSlot()  # before App.__init__, which asks get_driver_class
        super().__init__()
        self._hangups = hangups
        self.config = config
        self.title = config.title
        self.supervision = early.supervision if early is not None else new_supervision(config)
        self.session = self.supervision.session
        self._early = early
        if early is not None:
            early.scheduler.target = self._schedule
        self._started = early is not None
        emulator = self.session.emulator  # the size the early agent was spawned at, if any
        self._early_size = (emulator.cols, emulator.rows) if early is not None else None
        self._heap_frozen = False  # _settle_heap ran (and on_unmount undoes it)
        read = lambda: self.supervision.read_tick()  # noqa: E731 (looked up per read)
        self._ticks = TickPump(read, self._apply_tick, self._tick_failed)
        self.attention = Attention(config.notify, time.monotonic)
        self.alerts: list[str] = []  # what was written to the user's terminal to call them
        self.engine = EngineLink(self.supervision, self)
        self.recovery_keys = RecoveryKeys(self, self.supervision, self._focus_terminal)
        # A real run's (run_app's): its shutdown always ends, even when Textual's own hangs.
        self.deadline: ShutdownDeadline | None = None
        self._exiting = False
        self.set_keymap({_binding_id(name): getattr(config.keymap, name) for name in ACTIONS})
        self.raw_input = RawInput.install(self, [getattr(config.keymap, n) for n in ACTIONS])

    def get_driver_class(self) -> type[Driver]:
        return self._terminal_out.remembering(super().get_driver_class())

    def compose(self) -> ComposeResult:
        with Horizontal(id="main"):
            with Vertical(id="agent"):
                yield LossBanner(id="banner")
                yield TerminalView(self.session, shift_enter=self.config.shift_enter, id="terminal")
            if self.config.side_pane:
                # The side pane's place, so the agent's view has its final size from the
                # first frame; the pane itself mounts after that frame (_mount_side_pane).
                yield SideSlot(self.size.width, self.size.height, id="side-slot")
        yield StatusBar(id="status")
        yield KeyFooter()

    async def _mount_side_pane(self) -> None:
        """Run from the app's own queue and awaited, so a quit waits until the pane is whole
        (a pane torn down while it still mounts fails)."""
        from widgets.side_pane import SidePane

        try:
            slot = self.query_one("#side-slot")
        except NoMatches:  # the app is closing
            return
        if self._exiting or not slot.is_attached:  # a quit came first: nothing to show it in
            return
        # A missing .tether/ is shown in the pane, which fills in once it appears.
        await slot.mount(SidePane(TetherDir.at(self.config.workdir), id="side"))
        self.call_after_refresh(self._warm_tokenizer)

    @property
    def terminal(self) -> TerminalView:
        return self.query_one(TerminalView)

    @property
    def banner(self) -> LossBanner:
        return self.query_one(LossBanner)

    @property
    def status_bar(self) -> StatusBar:
        return self.query_one(StatusBar)

    # -- start-up ----------------------------------------------------------------

    def open_supervision(self) -> None:
        """Lock `.tether/` and start listening; injection timers run on this app's loop."""
        self.supervision.open(scheduler=self._schedule)

    def _schedule(self, delay: float, callback: Callable[[], None]) -> object:
        return self.set_timer(delay, callback)

    def on_mount(self) -> None:
        supervision = self.supervision
        if supervision.lock is None:
            try:
                self.open_supervision()
            except TetherError as error:
                self.exit(2, message=str(error))
                return
        loop = asyncio.get_running_loop()
        if self._hangups is not None:
            self._hangups.on_loop(loop, self.end)
        self.engine.attach()
        supervision.attach_loop(loop)  # hook calls reach fusion in memory, as they come
        view = self._view = self.raw_input.attach(self.terminal)
        self.status_bar.pane_key = self.config.keymap.side_pane.upper()
        self.status_bar.pane_hidden = self.config.side_pane and not self.query_one(SideSlot).shown
        self._render(supervision.attention.state)
        for incident in supervision.fusion.incidents:  # e.g. the unclean exit of a dead tether
            self._alert(self.attention.incident(incident.title()))
        self.set_interval(TICK_SECONDS, self._tick)
        view.focus()
        if self._early is not None:
            self.session.read_on(asyncio.get_running_loop())
            self._agent_started()
        self.call_after_refresh(self._after_first_frame)

    def _after_first_frame(self) -> None:
        """What the first frame need not wait for: the side pane, then the tokenizer."""
        if self.config.side_pane:
            self.call_later(self._mount_side_pane)
        else:
            self._warm_tokenizer()

    @work(thread=True, exclusive=True, group="tokenizer")
    def _warm_tokenizer(self) -> None:
        """Load the tokenizer and the judge's libraries off the event loop so the first
        rehydrate and the first loss audit do not wait for them, then set what start-up
        built aside (:meth:`_settle_heap`)."""
        from supervisor.recognize.judge.libraries import warm
        from supervisor.rehydrate.tokens import count_tokens

        count_tokens("")
        warm()  # the judge's libraries, which the first audited compaction needs on the loop
        try:
            self.call_from_thread(self._settle_heap)
        except RuntimeError:  # the app has already stopped
            pass

    def _settle_heap(self) -> None:
        """Move what start-up built out of the garbage collector's way.

        Textual's styles and widgets and the tokenizer's 100,000-entry table live as
        long as the app, yet every full collection walked them, at whatever moment a
        flood's allocations set one off (the stalls: bench/README.md). Unfrozen when
        the app ends.
        """
        if self._heap_frozen or not self.is_running:
            return
        if gc.isenabled():
            gc.collect(1)  # not the young garbage
        # else `tether run` started without collections (cli/run.py): one now would walk
        # all that start-up built, on the loop (~20 ms); its few hundred cycles stay frozen.
        gc.freeze()
        self._heap_frozen = True
        gc.enable()

    @_while_running
    def on_terminal_view_sized(self, message: TerminalView.Sized) -> None:
        early_size, self._early_size = self._early_size, None
        if not self._started:
            self._started = True
            self._start_agent()
        elif (message.cols, message.rows) != early_size:
            self.supervision.resized(message.cols, message.rows)

    def _start_agent(self) -> None:
        emulator = self.session.emulator
        start = self._start_agent_recorded(emulator.cols, emulator.rows)
        self.run_worker(start, name="start the agent", group="start", exclusive=True)

    async def _start_agent_recorded(self, cols: int, rows: int) -> None:
        """Make the recording's files on a thread, then start the agent on the loop, so
        that the recording has its first byte; then name the agent in the lock, off the loop."""
        supervision = self.supervision
        opened = await asyncio.to_thread(supervision.open_recording, cols, rows)
        if self._exiting or not self.is_running:  # a quit came first: no agent to start
            await asyncio.to_thread(supervision.discard_recording, opened)
            return
        supervision.recording_opened(opened, (cols, rows))
        try:
            self.session.start()
        except TetherError as error:
            self.exit(127, message=str(error))
            return
        self._agent_started()
        await asyncio.to_thread(supervision.note_agent)

    def _agent_started(self) -> None:
        self.supervision.agent_started()

    def _tick(self) -> None:
        """Read what the tick needs from disk off the loop; one read at a time."""
        if self._hangups is not None and (gone := self._hangups.terminal_gone()):
            self.end(*gone)  # no SIGHUP came (nohup): its reads end, its writes fail
            return
        self._ticks.request()

    def _tick_failed(self, error: BaseException) -> None:
        self.exit(1, message=f"tether: reading .tether/ failed: {error!r}")

    def _apply_tick(self, reads: TickReads) -> None:
        """On the loop: the engine takes the reads (its attention model says what changed)."""
        if not self.is_running:  # shutting down: the supervision is closing
            return
        self.supervision.apply_tick(reads)

    @_while_running
    def on_side_pane_file_changed(self, message: SidePane.FileChanged) -> None:
        """The side pane's watcher saw a file change: read what the tick reads now."""
        tether = self.supervision.tether
        if message.path in (tether.events, tether.progress, tether.artifacts):
            self._tick()

    # -- what the engine tells us ---------------------------------------------------

    @_while_running
    def on_engine_link_attention_changed(self, message: EngineLink.AttentionChanged) -> None:
        self._render(message.state)

    def _render(self, state: AttentionState) -> None:
        """Show what the attention model decided: the banner's notice and the status texts."""
        notice = state.notice
        banner = self.banner
        banner.idle_text = state.idle_text
        if notice is None:
            banner.hide()
        else:
            banner.show(notice.text, notice.tone, notice.short)
        status, bar = state.status, self.status_bar
        bar.profile = status.profile
        bar.agent_state = status.agent_state
        bar.context = status.context
        bar.compactions = status.compactions
        bar.incidents = status.incidents
        bar.last_incident = status.last_incident
        bar.checkpoint_age = status.checkpoint_age

    @_while_running
    def on_engine_link_incident_changed(self, message: EngineLink.IncidentChanged) -> None:
        if message.change.new:
            self._alert(self.attention.incident(message.change.incident.title()))

    @_while_running
    def on_engine_link_agent_state_changed(self, message: EngineLink.AgentStateChanged) -> None:
        # "unknown": the agent gives no cue (a plain command); it is running, that is all.
        self._alert(self.attention.state(message.state))

    def _alert(self, message: str | None) -> None:
        """Call the user back: the bell and a desktop notification, through their terminal."""
        if message is None:
            return
        sequence = self.attention.sequence(message)
        if not sequence:
            return
        self.alerts.append(sequence)
        driver = self._terminal_out.driver
        if driver is not None and not driver.is_headless:
            driver.write(sequence)  # as App.bell() writes its BEL

    @_while_running
    def on_engine_link_screen_changed(self, _message: EngineLink.ScreenChanged) -> None:
        self._view.screen_changed()  # the view paints at most once a frame

    @_while_running
    def on_engine_link_problem_reported(self, message: EngineLink.ProblemReported) -> None:
        self.notify(message.text, title="tether", severity="error", timeout=10)

    # -- tether's keys -------------------------------------------------------------

    def action_checkpoint(self) -> None:
        """Git is asked off the loop (it can take seconds); the toast comes once it is written."""
        self.supervision.checkpoint("manual (key)", then=self._checkpoint_taken)

    def _checkpoint_taken(self, taken: Checkpoint | TetherError) -> None:
        if isinstance(taken, TetherError):
            self.notify(str(taken), severity="error")
            return
        self.notify(f"Checkpoint #{taken.seq} taken", title="tether", timeout=3)

    def action_rehydrate(self) -> None:
        self.recovery_keys.rehydrate()

    def action_preview(self) -> None:
        self.recovery_keys.preview()

    def action_compact(self) -> None:
        self.recovery_keys.compact()

    def action_pin_dropped(self) -> None:
        self.recovery_keys.pin_dropped()

    def action_end_orphan(self) -> None:
        self.recovery_keys.end_orphan()

    def _focus_terminal(self) -> None:
        self.terminal.focus()

    def action_switch_focus(self) -> None:
        # Focus moves at once (Widget.focus waits a turn): a second F9 in the same read
        # must see where the first one put it.
        slots = self.query(SideSlot)
        if self.focused is self.terminal:  # has_focus follows only once Focus is handled
            sides = self.query("#side")
            if sides:
                slots.first().peek()
                self.screen.set_focus(sides.first())
        else:
            self.screen.set_focus(self.terminal)
            if slots:
                slots.first().unpeek()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """No pane key (nor its footer entry) when the app runs without a side pane; the
        end-orphan key only while there is an orphan (otherwise the key is the agent's)."""
        if action == "end_orphan":
            return self.supervision.orphan is not None
        return action != "toggle_pane" or self.config.side_pane

    def action_toggle_pane(self) -> None:
        for slot in self.query(SideSlot):
            slot.toggle()

    def on_resize(self, event: Resize) -> None:
        for slot in self.query(SideSlot):
            slot.fit(event.size.width, event.size.height)

    def on_side_slot_toggled(self, message: SideSlot.Toggled) -> None:
        """A hidden pane takes nothing with it: focus goes back to the agent, visibly."""
        self.status_bar.pane_hidden = not message.shown
        focused = self.focused
        if not message.shown and focused is not None and message.slot in focused.ancestors:
            self.terminal.focus()

    def action_request_quit(self) -> None:
        if not self.session.running:
            self.exit(0)
            return

        def decided(quit_: bool | None) -> None:
            if quit_:
                self.exit(0)

        from widgets.confirm_quit import ConfirmQuit

        self.push_screen(ConfirmQuit(), decided)

    def exit(self, result: int | None = None, return_code: int = 0, message: object = None) -> None:
        """Textual's exit, with the shutdown deadline armed (a real run's)."""
        self._exiting = True
        super().exit(result, return_code, message)  # type: ignore[arg-type]
        if self.deadline is not None:
            self.deadline.arm(return_code or result or 0)

    def end(self, reason: str, code: int) -> None:
        """Quit as the quit key does, via the queue (a mounting pane finishes): events say why.
        A signal during a quit already under way changes neither its reason nor its code."""
        if self._exiting:
            return
        self.supervision.end_reason = reason
        if self.deadline is not None:
            self.deadline.arm(code)  # before the queue, which may be what is stuck
        self.call_later(self.exit, code)

    async def on_unmount(self) -> None:
        # The widgets are going: nobody is left to tell, only the engine's own work remains.
        supervision = self.supervision
        self.engine.detach()
        self._ticks.close()  # no read of the files while they close
        supervision.hang_up()  # the agent's reader and timers are the loop's
        # The last checkpoints, the recording, tether_ended and the lock: their writes off
        # the loop. If they hang, the shutdown deadline (armed by exit) ends the process.
        await asyncio.to_thread(supervision.close_off_loop)
        if self._heap_frozen:  # another app in this process (tests) starts from a clean heap
            gc.unfreeze()
            self._heap_frozen = False


def run_app(
    config: RunConfig, early: EarlyStart | None = None, hangups: Hangups | None = None
) -> int:
    """Take the folder's lock before the screen changes, so a refusal is a plain message
    (`tether run` took it already when it started the agent ``early``)."""
    app = TetherApp(config, early, hangups)
    app.deadline = ShutdownDeadline(app.supervision.finish)
    try:
        if early is None:
            app.open_supervision()
        result = app.run()
    except BaseException:  # let go of what it holds (the app's unmount did, if it ran)
        app.supervision.finish()
        raise
    finally:
        app.deadline.disarm()  # it ended (or its clean-up ran just above)
        if hangups is not None:  # the loop's handlers went with it: the next signal raises
            hangups.install()
    if app.return_code and app.return_code != 0:
        return app.return_code
    return int(result or 0)
