"""The supervision of one agent session, without a UI: the run's engine and its parts.

The app composes this with its widgets; tests and benchmarks drive it
headless. Data flows one way: each PTY read goes to the recorder, the screen
detector and the agent state (with Codex's OSC 7501 reports); hook calls (handed
over in memory by the hook server), transcript tails and the process exit become
observations too; fusion turns observations into incidents. The session's
supervision owns that path and the run's lifecycle; it composes the parts that
each have one job:

- :class:`~supervisor.run.recovery.RecoveryCoordinator`: incident → payload →
  injection → recall check, and pins;
- :class:`~supervisor.run.restart.Restarter`: the agent's process across restarts;
- :class:`~supervisor.run.input_gate.InputGate`: whether tether may type now, and why not;
- :class:`~supervisor.run.event_recorder.EventRecorder`: the supervisor's events, off the loop;
- :class:`~supervisor.run.checkpointer.Checkpointer`: checkpoints and pins, off the loop;
- :class:`~supervisor.run.attention_model.AttentionModel`: what the user is told.

Listeners (the app) hear about incidents, the agent's state, the context meter,
problems, and the attention model's states.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from supervisor.agents import hook_client
from supervisor.agents.aider_history_follower import AIDER_HISTORY, AiderHistoryFollower
from supervisor.agents.codex_hooks import REVIEW_PROBLEM, rehydrates_at_next_prompt
from supervisor.agents.gemini_session import SessionLoadWatch
from supervisor.agents.hook_server import HookServer
from supervisor.agents.transcript_follower import TranscriptFollower
from supervisor.agents.transcript_locations import CLAUDE_TRANSCRIPT, COPILOT_JOURNAL
from supervisor.config.profiles import Profile, load_profile
from supervisor.errors import TetherError
from supervisor.recognize import hook_events
from supervisor.recognize.agent_state import AgentState, StatusReports
from supervisor.recognize.context_meter import ContextMeter
from supervisor.recognize.decision_capture import DecisionCapture
from supervisor.recognize.fusion import Claimed, Fusion, IncidentChange
from supervisor.recognize.observations import HOOKS_REVIEW, Incident, Observation
from supervisor.recognize.screen_detector import ScreenDetector
from supervisor.recognize.typed_commands import wipe_command
from supervisor.rehydrate.injector import Injector
from supervisor.rehydrate.injector_status import InjectorStatus
from supervisor.rehydrate.live_notes import LiveNotes
from supervisor.rehydrate.sanitize import sanitize
from supervisor.rehydrate.summary_instructions import reaches_summarizer
from supervisor.run import banner_text
from supervisor.run.attention_model import AttentionModel
from supervisor.run.checkpointer import Checkpointer, Taken
from supervisor.run.event_recorder import Event, EventRecorder
from supervisor.run.hook_inbox import HookInbox
from supervisor.run.input_gate import STALLED_REASON, USER_QUIET, InputGate, needs_cue
from supervisor.run.landmarks import landmark
from supervisor.run.orphan import end_left_over_agent, left_over_agent, unclean_exit_observation
from supervisor.run.recovery import RecoveryCoordinator
from supervisor.run.restart import Restarter, prompt_before_session
from supervisor.run.run_config import RunConfig, agent_argv
from supervisor.run.screen_dump import ScreenDump
from supervisor.run.tick_reads import Agent, CurrentNotes, TickReader, TickReads
from supervisor.store import invariant
from supervisor.store import lock as supervisor_lock
from supervisor.store.invariant_guard import InvariantGuard
from supervisor.store.lock import LockInfo
from supervisor.store.tether_dir import TetherDir, init
from supervisor.terminal.emulator import FeedResult
from supervisor.terminal.pty_host import ExitStatus
from supervisor.terminal.recorder import RecordingFailed, SessionRecorder
from supervisor.terminal.session import AgentSession

if TYPE_CHECKING:
    from supervisor.rehydrate.payload import Payload

__all__ = [
    "USER_QUIET",
    "ContextMeter",
    "RunConfig",
    "Scheduler",
    "Supervision",
    "Taken",
    "agent_argv",
]

Scheduler = Callable[[float, Callable[[], None]], Any]
# A recording's files, made off the loop: the recorder, the problem's words, or nothing.
OpenedRecording = SessionRecorder | str | None
# How often the lock's mtime is touched: after a crash it says when tether died, to this.
HEARTBEAT_SECONDS = 5.0
# The screen detector looks at most this often: a flood's reads come back to back,
# and a screen nobody could read between two of them need not be matched either.
SCAN_INTERVAL = 0.025
# Hooks whose transcript_path may name a file the session is not written to (Gemini names
# a fresh one at SessionStart before it loads the session it resumes).
_SESSION_HOOKS = ("SessionStart", "SessionEnd")
# How long finish() from the shutdown deadline waits for one already under way.
FINISH_WAIT_SECONDS = 5.0


# The agent's state while its output is held up before tether (a stopped reader process).
STALLED = "stalled"


class Supervision:
    """The engine side of one `tether run`: the session's supervision and its parts."""

    def __init__(
        self,
        config: RunConfig,
        session: AgentSession,
        *,
        profile: Profile | None = None,
        clock: Callable[[], float] = time.time,
        state: AgentState | None = None,
    ) -> None:
        """``state``: the agent-state tracker (default: one with the profile's cue rule)."""
        self.config = config
        self.session = session
        self.profile = profile or load_profile(config.profile_name)
        self.clock = clock
        self.tether = TetherDir.at(config.workdir)
        self.lock: supervisor_lock.SupervisorLock | None = None
        self._last_heartbeat = float("-inf")
        self.hook_server: HookServer | None = None
        self.recorder: SessionRecorder | None = None
        self.problems: list[str] = []
        self.started_at = clock()
        self._last_timer_checkpoint = time.monotonic()
        self.end_reason: str | None = None  # why tether ends: a signal (run/hangup.py), else quit
        self._scheduler: Scheduler | None = None
        self._opened = False
        self._finishing = threading.Lock()  # finish() from the loop or the shutdown deadline

        # Listeners the app subscribes to.
        self.on_incident: list[Callable[[IncidentChange], None]] = []
        self.on_state: list[Callable[[str], None]] = []
        self.on_meter: list[Callable[[ContextMeter], None]] = []
        self.on_problem: list[Callable[[str], None]] = []
        self.on_injection: list[Callable[[InjectorStatus], None]] = []
        self._reported_state = ""
        self._screen_dump = ScreenDump()

        profile_ = self.profile
        self.notes = CurrentNotes()  # notes.md as the tick last parsed it (off the loop)
        self.events = EventRecorder(self.tether, self._problem)
        self.inbox = HookInbox(self._hooks_heard)  # from our hook server's thread, in memory
        self.fusion = Fusion(
            self.events, decisions=self.notes.decisions, agent_started=self.started_at
        )
        self.screen = ScreenDetector(profile_.markers, replaying=config.resume)
        self.status_reports = StatusReports()
        self.state = state if state is not None else AgentState(needs_cue=needs_cue(profile_))
        self.meter = ContextMeter(window=profile_.context_window or None)
        self.current_incident: Incident | None = None
        self._held: list[Observation] | None = None  # while an incident's number is claimed
        self._settled: list[Callable[[], None]] = []  # acts that wait for that incident
        self._was_waiting = False
        self.decisions = DecisionCapture()
        self._scrolled = 0  # lines scrolled off since the screen detector last looked
        self._scan_rows: set[int] = set()  # rows changed since then
        self._rows_since: float | None = None  # self.clock() when the first of them changed
        self._last_scan = -SCAN_INTERVAL  # self._monotonic() of that look
        self._monotonic = time.monotonic
        self._scan_timer: asyncio.TimerHandle | None = None
        self.checkpointer = Checkpointer(self.tether, self._problem)
        self._transcript_refused: str | None = None  # said once per refusal
        self.transcript = TranscriptFollower(
            claude=CLAUDE_TRANSCRIPT in profile_.integrations,
            started_at=self.started_at,
            copilot=COPILOT_JOURNAL in profile_.integrations,
        )
        self.invariant = InvariantGuard(self.tether)
        self.live_notes = LiveNotes(self.tether)  # parsed once per change, read by all
        self.reader = TickReader(
            self.tether,
            self.transcript,
            self.invariant,
            profile_.integrations,
            self.live_notes,
            aider=self._aider_history(profile_),
        )
        self.last_checkpoint: tuple[int, float] | None = None  # for the status bar
        self._compact_sent = False  # compact_at_break: sent once per crossing of the threshold
        # The session file the agent's turn hooks last named (Gemini's transcript_path).
        self._agent_transcript: str | None = None

        self.restarter = Restarter(
            session=session,
            profile=profile_,
            config=config,
            tether=self.tether,
            events=self.events,
            lock=lambda: self.lock,
        )
        self.gate = InputGate(
            profile=profile_,
            keymap=config.keymap,
            state=self.state,
            decisions=self.decisions,
            clock=self.clock,
            restarted=lambda: self.restarter.restarts > 0,
            output_stalled=session.output_stalled,
        )
        self.injector = Injector(
            session,
            profile_,
            self.tether,
            is_waiting=self.gate.ready,
            call_later=self._call_later,
            take_checkpoint=self.checkpoint,
            why_waiting=self.gate.wait_reason,
            output_stalled=session.output_stalled,
            record_event=self.events.record_event,  # the injection's fsync, off the loop
            submit_delay=profile_.submit_delay_ms / 1000,
        )
        self.injector.listeners.append(self._injection_changed)
        self.injector.sent_listeners.append(self.transcript.own_words.add)
        self.recovery = RecoveryCoordinator(
            injector=self.injector,
            profile=profile_,
            tether=self.tether,
            meter=self.meter,
            gate=self.gate,
            notes=self.notes,
            live=self.live_notes,
            writer=self.checkpointer,
            events=self.events,
            incident=lambda: self.current_incident,
            note_input=lambda: self.screen.note_input(),
            problem=self._problem,
        )
        self.attention = AttentionModel(
            keymap=config.keymap,
            profile_name=profile_.name,
            at_next_prompt=rehydrates_at_next_prompt(profile_),
            orphan=lambda: self.orphan,
            compact_told=reaches_summarizer(profile_),
        )

    def _aider_history(self, profile_: Profile) -> AiderHistoryFollower | None:
        """aider's history files, for a profile that follows them (no disk read here)."""
        if AIDER_HISTORY not in profile_.integrations:
            return None
        env = {**os.environ, **(self.config.env or {})}
        return AiderHistoryFollower(
            self.config.argv, env, self.config.workdir, self.tether.root, self.transcript.own_words
        )

    # -- lifecycle -----------------------------------------------------------

    def open(
        self, scheduler: Scheduler | None = None, lock: supervisor_lock.SupervisorLock | None = None
    ) -> None:
        """Create `.tether/` if needed, take the folder's lock (or the one `tether run` took
        before spawning the agent), start listening. ``scheduler``: the injector's timers
        (the app's); else the running loop's."""
        if not self.tether.exists():
            init(self.config.workdir)
        self._scheduler = scheduler
        self.lock = lock if lock is not None else supervisor_lock.acquire(self.tether)
        self._opened = True
        try:
            self.attach_loop(asyncio.get_running_loop())
        except RuntimeError:  # opened before the app's loop runs: the app attaches it
            pass
        self._serve_hooks()
        self.reader.open()
        self.notes.digest = self.reader.notes_if_changed() or self.notes.digest
        previous = self.lock.previous
        if previous is not None:
            self.observe(unclean_exit_observation(previous, self.clock()))
        self.enforce_invariant()
        self.session.listeners.append(self._on_output)
        self.session.exit_listeners.append(self._on_exit)
        self.session.input_listeners.append(self.note_input)
        self.session.before_resize.append(self._look_before_resize)
        self.session.after_resize.append(self._look_after_resize)

    def attach_loop(self, loop: asyncio.AbstractEventLoop) -> None:
        """Hook calls the server heard go to ``loop`` as they come (else at the next tick)."""
        self.inbox.attach(loop)

    def _call_later(self, delay: float, callback: Callable[[], None]) -> Any:
        if self._scheduler is not None:
            return self._scheduler(delay, callback)
        return asyncio.get_running_loop().call_later(delay, callback)

    def _check_open(self) -> None:
        if not self._opened:
            raise TetherError("the supervisor is not open")

    def start_recording(self) -> None:
        """Begin `sessions/<stamp>-<profile>.cast` and `.txt` at the agent's screen size,
        and name the agent in the lock: at once, where no loop runs yet (`tether run`'s
        early start, headless callers). The app does the same in steps, its files on a
        worker: :meth:`open_recording`, :meth:`recording_opened`, :meth:`note_agent`."""
        self.note_agent()
        emulator = self.session.emulator
        self.recording_opened(self.open_recording(emulator.cols, emulator.rows))

    def note_agent(self) -> None:
        """The lock names the running agent (a write to the lock: any thread)."""
        self.restarter.note_agent_pid()

    def open_recording(self, cols: int, rows: int) -> OpenedRecording:
        """Create the recording's files and name the `.cast` in the lock: file I/O, safe
        on a worker thread (it tells nobody anything). None when this run records
        nothing; the problem's words when the files cannot be made."""
        if not self.config.record or self.recorder is not None:
            return None
        try:
            recorder = SessionRecorder(
                self.tether.sessions,
                self.config.profile_name,
                cols,
                rows,
                on_failure=self._recording_failed,
            )
        except (OSError, TetherError) as error:
            return f"recording is off: {error}"
        lock = self.lock
        if lock is not None:  # `tether transcript` reads this one while we run
            lock.record_recording(recorder.cast_path.name)
        return recorder

    def recording_opened(
        self, opened: OpenedRecording, size: tuple[int, int] | None = None
    ) -> None:
        """On the loop: what :meth:`open_recording` made records the agent's output from
        now on (``size``: the one it was made at, if the screen may have changed since)."""
        if isinstance(opened, str):
            self._problem(opened)
            return
        if opened is None or self.recorder is not None:
            return
        self.recorder = opened
        emulator = self.session.emulator
        if size is not None and size != (emulator.cols, emulator.rows):
            opened.resize(emulator.cols, emulator.rows)

    @staticmethod
    def discard_recording(opened: OpenedRecording) -> None:
        """A recording opened for a run that ended meanwhile: closed (file I/O: any thread)."""
        if isinstance(opened, SessionRecorder):
            opened.close()

    def _recording_failed(self, failure: RecordingFailed) -> None:
        """The recording stopped on a write error (a full disk): the banner, and an event
        (which the same disk may refuse: then the problem says that too). The recorder
        calls it on the thread that feeds and flushes it, the loop, never on its writer's."""
        self._problem(failure.message)
        self.attention.say(failure.message, "warning", source="recording")
        self.events.record(
            "recording_failed",
            "supervisor",
            failure="the recording_failed event was not recorded",
            file=str(failure.path),
            reason=failure.reason,
            errno=failure.errno,
            at_seconds=round(failure.at, 3),
        )

    def agent_started(self) -> None:
        """The agent runs (under the app): the initial brief, and a dead tether's unclean
        exit offered again, now that its recovery can go once the agent waits."""
        self.attention.agent_state("starting")
        if self.profile.initial_brief:
            self.send_brief()
        if self.current_incident is not None:
            self.attention.incident(
                self.current_incident, compactions=self.fusion.compaction_count()
            )

    def finish(self) -> None:
        """The end of the run: hang up on the agent and close (below). Safe to call twice and
        from another thread (the shutdown deadline's, when the loop's own end is stuck)."""
        self._finish_once(self.stop_agent, self.close)

    def hang_up(self) -> None:
        """The loop's half of the end of the run (the app's): hang up on the agent, whose
        reader and timers are the loop's, and hand the loop nothing more. Its writes to
        `.tether/` follow in :meth:`close_off_loop`, on another thread."""
        self._cancel_scan()
        self.inbox.detach()
        self.stop_agent()

    def close_off_loop(self) -> None:
        """The rest of :meth:`finish` after :meth:`hang_up`, on a thread of its own while
        the loop waits for it: the last checkpoints, the recording, ``tether_ended``, the
        lock. Under the same guard as finish(), which the shutdown deadline may run."""
        self._finish_once(self.close)

    def _finish_once(self, *steps: Callable[[], None]) -> None:
        """``steps`` under the end's guard: one end of the run at a time."""
        if not self._finishing.acquire(timeout=FINISH_WAIT_SECONDS):
            return  # the other one is under way and stuck: the process ends all the same
        try:
            for step in steps:
                step()
        finally:
            self._finishing.release()

    def _cancel_scan(self) -> None:
        if self._scan_timer is not None:
            self._scan_timer.cancel()
            self._scan_timer = None

    def close(self) -> None:
        """Flush the recording with the final screen and release the lock (a clean exit).

        Safe to call again, and from any thread once the loop is gone."""
        self._cancel_scan()
        self.checkpointer.close()
        if self.recorder is not None:
            try:
                self.recorder.close(self.session.emulator.display())
            except OSError as error:
                self._problem(f"recording not closed cleanly: {error}")
            self.recorder = None
        if self.hook_server is not None:
            self.hook_server.stop()
            self.hook_server = None
        self.inbox.detach()
        if self.lock is not None:
            self._record_end()
            self.events.close()
            self.lock.release()
            self.lock = None
        self.events.close()

    def _record_end(self) -> None:
        """events.jsonl says how this run of tether ended; emptying the lock, next, says
        that the end was clean."""
        reason = self.end_reason or "quit"
        status = self.session.exit_status  # how the agent took its hangup
        agent = status.describe() if status is not None else "not started"
        self.events.close()  # what is pending first: the end is the last event
        self.events.record(
            "tether_ended",
            "supervisor",
            failure="the end of this run is not recorded",
            reason=reason,
            agent=agent,
        )

    def _serve_hooks(self) -> None:
        """Answer the agent's `tether hook` calls from this process (the fast path)."""
        try:  # `tether run` may have reserved its socket for an agent spawned before this
            server = self.hook_server or HookServer(self.config.workdir)
            server.heard = self.inbox.heard
            server.live = self.live_notes  # its answers read the one parse of the notes
            path = server.start()
        except OSError as error:  # the hooks then build their answers themselves
            self._problem(f"hook calls are answered the slow way: {error}")
            return
        self.hook_server = server
        if self.session.base_env is None:
            self.session.base_env = dict(os.environ)
        self.session.base_env[hook_client.SOCKET_ENV] = path

    def resized(self, cols: int, rows: int) -> None:
        if self.recorder is not None:
            self.recorder.resize(cols, rows)

    @property
    def orphan(self) -> LockInfo | None:
        """The dead tether's agent, still running (orphaned), if there is one."""
        return left_over_agent(self.lock)

    async def end_orphan(self) -> str:
        """End the dead tether's left-over agent (off the loop); say how it went."""
        return await end_left_over_agent(self.lock, self.tether)

    def _problem(self, message: str) -> None:
        self.problems.append(message)
        for notify in self.on_problem:
            notify(message)

    # -- the agent's process -------------------------------------------------------

    def stop_agent(self) -> None:
        """Hang up on the agent because the user asked (quit, restart): not a crash. Its
        end is recorded, with a checkpoint, as when it exits on its own."""
        status = self.restarter.stop()
        if status is not None:
            self._on_exit(status)

    def restart(self, *, payload: Payload | None = None) -> None:
        """Start the agent again with the profile's resume command; rehydrate once the new
        process shows that it waits (``payload``: one already built, off the loop).

        The crash's incident may still be claiming its number off the loop: the restart
        comes after it, so that the dead agent's loss is known before the new one starts.
        """
        if self._held is not None:
            self._settled.append(lambda: self.restart(payload=payload))
            return
        self.screen = ScreenDetector(self.profile.markers, replaying=True)
        self.status_reports = StatusReports()  # the dead one's last report ended with it
        # An agent that draws its prompt before it loads the session it resumes: wait until
        # loading it appends its line to the session file its turn hooks named (when they
        # reached us at all).
        loads = self._agent_transcript if prompt_before_session(self.profile) else None
        self.reader.watch = SessionLoadWatch(Path(loads)) if loads else None
        self.state.restart(needs_cue=needs_cue(self.profile), awaits_start=bool(loads))
        self.transcript.forget()
        self.fusion.agent_started(self.clock())  # what its session file replays is history
        self.restarter.start_again()
        # The lock names the new agent on the writer thread (at once without a loop).
        self.checkpointer.write(self.note_agent, lambda _noted: None)
        self.rehydrate(reason="restart after crash", payload=payload)

    @property
    def restarts(self) -> int:
        return self.restarter.restarts

    def _on_exit(self, status: ExitStatus) -> None:
        self.observe(self.restarter.exit_observation(status, self.clock()))
        self.restarter.record_exit(status)
        self.checkpoint(f"agent {status.describe()}")
        self._report_state()
        self.attention.agent_exited(status)

    # -- input from the user -----------------------------------------------------

    def ready_for_injection(self) -> bool:
        """The agent waits for input and the person is not typing to it."""
        return self.gate.ready()

    def wait_reason(self) -> str | None:
        """Why a payload must wait now, in words for the banner; None when it may go."""
        return self.gate.wait_reason()

    def note_input(self, data: bytes) -> None:
        """Keys the user sent the agent: ends a resume replay; typed DECISION: lines wait
        for the screen to show them (see :mod:`supervisor.recognize.decision_capture`)."""
        self.screen.note_input()
        self.gate.keys(data)
        commands = self.profile.wipe_commands
        for line in self.decisions.take_submitted() if commands else ():
            waiting = self.state.said_waiting  # a busy agent may refuse it
            observation = wipe_command(line, commands, self.clock(), waiting=waiting)
            if observation is not None:  # before the agent says so (Codex: next turn)
                self.observe(observation)

    # -- the agent's output ---------------------------------------------------------

    def _on_output(self, data: bytes, result: FeedResult) -> None:
        now = self.clock()
        recorder = self.recorder
        if recorder is not None:
            recorder.record(data)
            if result.scrolled_off:
                recorder.scrolled_off(result.scrolled_off)
        self.state.note_output(now, drew=bool(result.dirty))
        observations = self.status_reports.read(self.session.emulator.agent_status, now)
        self._scrolled += len(result.scrolled_off)
        if result.dirty:
            if not self._scan_rows:
                self._rows_since = now
            self._scan_rows |= result.dirty
            wait = self._last_scan + SCAN_INTERVAL - self._monotonic()
            if wait <= 0 or not self._defer_scan(wait):
                observations += self._scan_screen(now)
        found = self.decisions.output(data, now, result.dirty, self.session.emulator)
        if found:
            self.recovery.pin_found(found)
        for observation in observations:
            self.observe(observation)

    def _scan_screen(self, now: float) -> list[Observation]:
        """Match the rows changed since the last look (and count the lines scrolled off).

        What they show was observed when they changed, not when the (deferred) look came:
        a meter row drawn before a fresher report must not pass for newer than it.
        """
        rows, self._scan_rows = self._scan_rows, set()
        if self._rows_since is not None:
            now, self._rows_since = min(now, self._rows_since), None
        scrolled, self._scrolled = self._scrolled, 0
        self._last_scan = self._monotonic()
        if self._scan_timer is not None:
            self._scan_timer.cancel()
            self._scan_timer = None
        if not rows:
            return []
        return self.screen.scan(self.session.emulator, now, rows, scrolled=scrolled)

    def _look_before_resize(self) -> None:
        """Rows drawn at the old size and not yet looked at: new, whatever the reflow does."""
        for observation in self._scan_screen(self.clock()):
            self.observe(observation)

    def _look_after_resize(self) -> None:
        """The reflow, looked at as it happens: the screen detector takes it for a redraw.

        Left to the next output's look, the reflow and what the agent draws next (the
        echo of a typed /compact and its compaction-started cue) came in one look, and
        the cue went as part of the redraw: the compaction was never reported.
        """
        self._scrolled = 0
        for observation in self.screen.scan(self.session.emulator, self.clock(), None):
            self.observe(observation)

    def _defer_scan(self, wait: float) -> bool:
        """Look at the screen ``wait`` seconds from now (once); False without an event loop."""
        if self._scan_timer is None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                return False
            self._scan_timer = loop.call_later(wait, self._deferred_scan)
        return True

    def _deferred_scan(self) -> None:
        self._scan_timer = None
        for observation in self._scan_screen(self.clock()):
            self.observe(observation)

    def observe(self, observation: Observation) -> None:
        """One observation from any source: state, meter, fusion, incident listeners.

        A loss that opens an incident waits for its number, claimed under the store's
        lock on the event recorder's thread (never on the loop); observations that come
        meanwhile wait behind it, so that each is handled in the order it came.
        """
        if self._held is not None:
            self._held.append(observation)
            return
        draft = self.fusion.draft(observation)
        if draft is None:
            self._observed(observation, None)
            return
        self._held = []

        def claimed(event: Event | None, new: bool) -> None:
            held, self._held = self._held or [], None
            self._observed(observation, Claimed(draft, event, new))
            for later in held:  # one of them may open an incident: the rest wait again
                self.observe(later)
            while self._held is None and self._settled:  # acts that needed the incident
                self._settled.pop(0)()

        self.events.claim(self.fusion.claim_of(draft), claimed)

    def _observed(self, observation: Observation, claimed: Claimed | None) -> None:
        if observation.kind == HOOKS_REVIEW:
            self._problem(REVIEW_PROBLEM)
        self.state.observe(observation)
        if self.meter.update(observation):
            self._meter_changed()
        change = self.fusion.observe(observation, claimed)
        if change is None:
            return
        incident = change.incident
        if change.new:
            self.current_incident = incident
            if incident.kind == "compaction":
                self.meter.stale = True
                self._compact_sent = False
                self._meter_changed()
            self.checkpoint(incident.title(), incident=incident.number)
        self.attention.incident(
            incident, compactions=self.fusion.compaction_count(), new=change.new
        )
        for notify in self.on_incident:
            notify(change)

    def _meter_changed(self) -> None:
        self.attention.meter(self.meter.describe(), offered=self.compact_offered())
        for notify in self.on_meter:
            notify(self.meter)

    # -- checkpoints -------------------------------------------------------------

    def checkpoint(
        self, reason: str, *, incident: int | str | None = None, then: Taken | None = None
    ) -> None:
        """Take a checkpoint without holding the event loop for git or the copy (checkpointer)."""
        self.checkpointer.checkpoint(reason, incident=incident, then=then)

    # -- the clock -----------------------------------------------------------------

    def tick(self, now: float | None = None) -> None:
        """Called a few times a second: hooks, transcripts, injection, recording, timer.

        Headless callers do both halves here; the app reads on a worker thread.
        """
        self.apply_tick(self.read_tick(now))

    def read_tick(self, now: float | None = None) -> TickReads:
        """The tick's file I/O (see tick_reads.py): safe on a worker thread."""
        monotonic = time.monotonic() if now is None else now
        timer_due = monotonic - self._last_timer_checkpoint >= self.config.checkpoint_every
        if timer_due:
            self._last_timer_checkpoint = monotonic
        lock = self.lock  # released by close() on another thread: the lock guards its fd
        if lock is not None and monotonic - self._last_heartbeat >= HEARTBEAT_SECONDS:
            self._last_heartbeat = monotonic
            lock.heartbeat()  # the lock file's mtime: here, with the tick's other file I/O
        host = self.session.host
        agent = None if host is None else Agent(host.pid, self._agent_env(), self.config.workdir)
        injector = self.injector
        sent = injector.awaiting_acknowledgement() if self._opened else None
        reads = self.reader.read(
            self.clock(),
            agent=agent,
            sent=sent,
            overdue=sent is not None and injector.recall_overdue(sent),
            since=self.started_at - 1,
            timer_due=timer_due and not self.checkpointer.busy,
        )
        dumped = self._screen_dump.write_taken()  # the text the last apply took
        if dumped:
            reads.problems.append(dumped)
        return reads

    def apply_tick(self, reads: TickReads) -> None:
        """What the reads found, on the loop: observations, injection, the timer checkpoint."""
        wall = self.clock()
        if reads.notes is not None:  # before the hook events: their audit uses the pins
            self.notes.digest = reads.notes
        self.inbox.drain()  # a headless tick, or a hand-over still on its way
        self._hook_events(reads.events, wall)
        if reads.session_loaded and self.reader.watch is not None:
            self.reader.watch = None  # it loaded the session: its prompt on screen counts now
            self.state.session_started(wall, prompt_shown=self.screen.state == "waiting")
        if reads.found_transcript is not None:
            self.transcript.follow(reads.found_transcript)
        for observation in reads.transcript:
            self.observe(observation)
        refused = self.transcript.refused  # its path is the hook's text: not shown
        if refused is not None and refused != self._transcript_refused:
            self._problem(f"the agent's transcript file is {refused}: not followed")
        self._transcript_refused = refused
        if reads.invariant.problem:
            self._problem(reads.invariant.problem)
        for warning in reads.invariant.warnings:
            self._problem(warning)
        for problem in reads.problems:
            self._problem(problem)
        self.last_checkpoint = reads.last_checkpoint
        self._report_state()
        self._dump_screen()
        if self._opened:
            self._offer_injection(reads)
        if self.recorder is not None:
            self.recorder.flush()  # hands the buffer to its writer thread; tells of a failure
        if reads.state_changed:
            self.checkpoint("timer: state changed")
        injector = self.injector if self._opened else None
        self.attention.time_passed(
            self.checkpoint_age(),
            injector.status() if injector is not None else None,
        )

    def checkpoint_age(self) -> str:
        """ "#7, 3 min ago": the last checkpoint the tick saw, for the status bar."""
        return banner_text.checkpoint_age(self.last_checkpoint, self.clock())

    def _offer_injection(self, reads: TickReads) -> None:
        """A break: what waits for the agent to wait (a queued payload, a compaction), and
        the recall check the reads found."""
        injector = self.injector
        waiting = self.ready_for_injection()
        if waiting and not self._was_waiting and injector.agent_became_waiting():
            self.screen.note_input()
        self._was_waiting = waiting
        if (
            self.profile.compact_at_break
            and not self._compact_sent
            and waiting
            and self.compact_offered()
        ):
            self._compact_sent = True  # the user turned it on: compact at this break
            self.compact_now(by="auto at a break")
        if reads.acknowledged is not None and injector.acknowledge(*reads.acknowledged):
            number = reads.acknowledged[0].request.incident  # the injection's own incident
            if isinstance(number, int):
                self.fusion.acknowledge(number)

    def _dump_screen(self) -> None:
        if not self._screen_dump.asked():  # the whole screen's text, every tick, for nobody
            return
        self._screen_dump.take(self.session.emulator.display())  # written by the next read

    def enforce_invariant(self) -> invariant.InvariantResult | None:
        """Disk wins: a cursor that disagrees with artifacts.jsonl is rolled to the disk truth."""
        enforced = self.invariant.enforce()
        if enforced.problem:
            self._problem(enforced.problem)
        for warning in enforced.warnings:
            self._problem(warning)
        return enforced.result

    def _report_state(self) -> None:
        state = "exited" if self.session.exit_status else self.state.state(self.clock())
        if state != "exited" and self.session.output_stalled():
            state = STALLED  # blocked mid-output, whatever its last screen said
            if self._reported_state != STALLED:
                self._problem(STALLED_REASON)
        if state != self._reported_state:
            self._reported_state = state
            if state != "exited":  # the exit's own words come with agent_exited
                self.attention.agent_state(state)
            for notify in self.on_state:
                notify(state)

    def _hooks_heard(self, records: list[Event]) -> None:
        """Hook calls our own server recorded, in memory, on the loop."""
        if self._opened:
            self._hook_events(records, self.clock())

    def _hook_events(self, records: list[Event], now: float) -> None:
        for record in records:
            recorder = self.recorder
            label = None if recorder is None else landmark(record)
            if recorder is not None and label is not None:  # a marker for a player to jump to
                recorder.mark(label)
            if self._opened:
                self.recovery.hook_delivery(record)
            if record.get("kind") == "compact_request" and self._opened:
                try:
                    self.compact_now(by=str(record.get("source") or "cli"))
                except TetherError as error:
                    self._problem(str(error))
            if record.get("kind") == "drift_alarm":  # raised by `tether hook` from the ledger
                alarm = sanitize(str(record.get("message") or "drift alarm"))
                self.attention.drift_alarm(alarm)  # the banner
                self._problem(alarm)  # the notification
            if record.get("kind") != "hook":
                continue
            payload = record.get("payload")
            if isinstance(payload, dict) and record.get("event") not in _SESSION_HOOKS:
                named = payload.get("transcript_path")
                if isinstance(named, str) and named:
                    self._agent_transcript = named  # where this session's turns are written
            if isinstance(payload, dict):
                self.transcript.follow(payload.get("transcript_path"))
            for observation in hook_events.observations_from_event(record, now):
                if not self.restarter.old_state_report(record, observation):
                    self.observe(observation)

    def _agent_env(self) -> dict[str, str]:
        return self.session.base_env if self.session.base_env is not None else dict(os.environ)

    # -- rehydration (the recovery coordinator's) ------------------------------------

    def _injection_changed(self, status: InjectorStatus) -> None:
        if status.state == "sent":
            self.gate.sent()
        self.attention.injection(status)
        for notify in self.on_injection:
            notify(status)

    def build_payload(self, *, checkpoint: int | None = None) -> Payload:
        return self.recovery.build_payload(checkpoint=checkpoint)

    def rehydrate(
        self, text: str | None = None, *, reason: str = "rehydrate", payload: Payload | None = None
    ) -> str:
        self._check_open()
        return self.recovery.rehydrate(text, reason=reason, payload=payload)

    def compact_now(self, *, by: str = "key") -> str:
        self._check_open()
        return self.recovery.compact_now(by=by)

    def compact_offered(self) -> bool:
        return self.recovery.compact_offered()

    def send_brief(self) -> None:
        if self._opened:
            self.recovery.send_brief()

    def pin(
        self,
        texts: list[str],
        source: str,
        then: Callable[[list[str] | TetherError], None] | None = None,
    ) -> None:
        self.recovery.pin(texts, source, then)
