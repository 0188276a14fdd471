"""Everything tether does around one agent run, without a UI.

The app composes this with its widgets; tests and benchmarks drive it
headless. Data flows one way: each PTY read goes to the recorder, the screen
detector and the agent state (with Codex's OSC 7501 reports); hook events (appended to
events.jsonl by `tether hook`), transcript tails and the process exit become
observations too; fusion turns observations into incidents; the injector puts
the rehydrate payload into the agent when it waits for input. Listeners (the
app) hear about incidents, the agent's state, the context meter and problems.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from typing import Any

from supervisor.agents import hook_client
from supervisor.agents.codex_hooks import REVIEW_PROBLEM
from supervisor.agents.hook_server import HookServer
from supervisor.agents.transcript_follower import TranscriptFollower
from supervisor.agents.transcript_locations import CLAUDE_TRANSCRIPT, COPILOT_JOURNAL
from supervisor.config.profiles import Profile, load_profile
from supervisor.errors import TetherError
from supervisor.recognize import hook_events
from supervisor.recognize.agent_state import AgentState, StatusReports
from supervisor.recognize.context_meter import ContextMeter
from supervisor.recognize.decision_capture import DecisionCapture
from supervisor.recognize.fusion import Fusion, IncidentChange
from supervisor.recognize.observations import HOOKS_REVIEW, Incident, Observation
from supervisor.recognize.screen_detector import ScreenDetector
from supervisor.rehydrate.injector import Injector, InjectorStatus
from supervisor.run.checkpointer import Checkpointer, Taken
from supervisor.run.landmarks import landmark
from supervisor.run.orphan import end_left_over_agent, left_over_agent
from supervisor.run.recovery import Recovery
from supervisor.run.restart import Restarts, needs_cue
from supervisor.run.run_config import RunConfig, agent_argv
from supervisor.run.screen_dump import ScreenDump
from supervisor.run.tick_reads import Agent, NotesDigest, TickReader, TickReads
from supervisor.store import invariant
from supervisor.store import lock as supervisor_lock
from supervisor.store.invariant_guard import InvariantGuard
from supervisor.store.lock import LockInfo
from supervisor.store.tether_dir import TetherDir, init
from supervisor.terminal.emulator import FeedResult
from supervisor.terminal.recorder import SessionRecorder
from supervisor.terminal.session import AgentSession

__all__ = ["ContextMeter", "RunConfig", "Scheduler", "Supervision", "Taken", "agent_argv"]

Scheduler = Callable[[float, Callable[[], None]], Any]
USER_QUIET = 1.0  # seconds without a key from the user before tether injects
# How often the lock's mtime is touched: after a crash it says when tether died, to this.
HEARTBEAT_SECONDS = 5.0
# The screen detector looks at most this often: a flood's reads come back to back,
# and a screen nobody could read between two of them need not be matched either.
SCAN_INTERVAL = 0.025


class Supervision(Restarts, Recovery):
    """The engine side of one `tether run` (the agent's process: restart.py)."""

    def __init__(
        self,
        config: RunConfig,
        session: AgentSession,
        *,
        profile: Profile | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
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
        self._stopping = False

        self.fusion = Fusion(self.tether, decisions=self._pinned_decisions)
        self.screen = ScreenDetector(self.profile.markers, replaying=config.resume)
        self.status_reports = StatusReports()
        self.state = AgentState(needs_cue=needs_cue(self.profile))
        self.meter = ContextMeter(window=self.profile.context_window or None)
        self.current_incident: Incident | None = None
        self._was_waiting = False
        self.decisions = DecisionCapture()
        self._send_anyway = False  # the user pressed the rehydrate key again on a typed line
        self._last_input = 0.0
        self._scrolled = 0  # lines scrolled off since the screen detector last looked
        self._scan_rows: set[int] = set()  # rows changed since then
        self._rows_since: float | None = None  # self.clock() when the first of them changed
        self._last_scan = -SCAN_INTERVAL  # self._monotonic() of that look
        self._monotonic = time.monotonic
        self._scan_timer: asyncio.TimerHandle | None = None
        self.checkpointer = Checkpointer(self.tether, self._problem)
        self.transcript = TranscriptFollower(
            claude=CLAUDE_TRANSCRIPT in self.profile.integrations,
            started_at=self.started_at,
            copilot=COPILOT_JOURNAL in self.profile.integrations,
        )
        self.injector: Injector | None = None
        self.invariant = InvariantGuard(self.tether)
        self.reader = TickReader(
            self.tether, self.transcript, self.invariant, self.profile.integrations
        )
        self.last_checkpoint: tuple[int, float] | None = None  # for the status bar
        self._compact_sent = False  # compact_at_break: sent once per crossing of the threshold
        self.notes = NotesDigest()  # what the loop uses of notes.md, read by the tick

        # Listeners the app subscribes to.
        self.on_incident: list[Callable[[IncidentChange], None]] = []
        self.on_state: list[Callable[[str], None]] = []
        self.on_meter: list[Callable[[ContextMeter], None]] = []
        self.on_problem: list[Callable[[str], None]] = []
        self.on_injection: list[Callable[[InjectorStatus], None]] = []
        self._reported_state = ""
        self._screen_dump = ScreenDump()

    # -- lifecycle -----------------------------------------------------------

    def open(
        self, scheduler: Scheduler | None = None, lock: supervisor_lock.SupervisorLock | None = None
    ) -> None:
        """Create `.tether/` if needed, take the folder's lock (or the one `tether run` took
        before spawning the agent), start listening."""
        if not self.tether.exists():
            init(self.config.workdir)
        self.lock = lock if lock is not None else supervisor_lock.acquire(self.tether)
        self._serve_hooks()
        self.reader.open()
        self.notes = self.reader.notes_if_changed() or self.notes
        previous = self.lock.previous
        if previous is not None:
            self.observe(supervisor_lock.unclean_exit_observation(previous, self.clock()))
        self.injector = Injector(
            self.session,
            self.profile,
            self.tether,
            is_waiting=self.ready_for_injection,
            call_later=scheduler,
            take_checkpoint=self.checkpoint,
            why_waiting=self.wait_reason,
        )
        self.injector.listeners.append(self._injection_changed)
        self.enforce_invariant()
        self.session.listeners.append(self._on_output)
        self.session.exit_listeners.append(self._on_exit)
        self.session.input_listeners.append(self.note_input)

    def start_recording(self) -> None:
        """Begin `sessions/<stamp>-<profile>.cast` and `.txt` at the agent's screen size."""
        self._note_agent_pid()
        if not self.config.record or self.recorder is not None:
            return
        emulator = self.session.emulator
        try:
            self.recorder = SessionRecorder(
                self.tether.sessions, self.config.profile_name, emulator.cols, emulator.rows
            )
        except (OSError, TetherError) as error:
            self._problem(f"recording is off: {error}")

    def close(self) -> None:
        """Flush the recording with the final screen and release the lock (a clean exit)."""
        if self._scan_timer is not None:
            self._scan_timer.cancel()
            self._scan_timer = None
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
        if self.lock is not None:
            self._record_end()
            self.lock.release()
            self.lock = None

    def _serve_hooks(self) -> None:
        """Answer the agent's `tether hook` calls from this process (the fast path)."""
        try:  # `tether run` may have reserved its socket for an agent spawned before this
            server = self.hook_server or HookServer(self.config.workdir)
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

    # -- input from the user -----------------------------------------------------

    def ready_for_injection(self) -> bool:
        """The agent waits for input and the person is not typing to it."""
        return self.wait_reason() is None

    def wait_reason(self) -> str | None:
        """Why a payload must wait now, in words for the banner; None when it may go.

        A paste while the user types would interleave with their keys, and one into
        a half-typed line would be glued to it and submitted with it: a line the
        user started holds the payload until it is sent or cleared, however long
        that takes, unless the user presses the rehydrate key again (send anyway).
        """
        now = self.clock()
        if self.decisions.typed and not self._send_anyway:  # first: an echo is not "busy"
            key = self.config.keymap.rehydrate.upper()
            return (
                "you have started typing on the agent's input line; it is sent once the line "
                f"is empty (sent or cleared) · {key} again: send anyway"
            )
        if not self.state.ready_for_input(now):
            return self.not_ready_reason(now)
        if now - self._last_input < USER_QUIET:
            return "you are typing to the agent; it is sent after a pause"
        return None

    def note_input(self, data: bytes) -> None:
        """Keys the user sent the agent: ends a resume replay; typed DECISION: lines wait
        for the screen to show them (see :mod:`supervisor.recognize.decision_capture`)."""
        self._last_input = self.clock()
        self.screen.note_input()
        self.decisions.keys(data, self._last_input)
        if not self.decisions.typed:
            self._send_anyway = False

    def _pin_decisions(self, found: list[tuple[str, str]]) -> None:
        """Pin each ``(text, source)``, recording its true source (typed or screen)."""
        for source in dict.fromkeys(source for _, source in found):
            self.pin([text for text, from_ in found if from_ == source], source)

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
            self._pin_decisions(found)
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
        """One observation from any source: state, meter, fusion, incident listeners."""
        if observation.kind == HOOKS_REVIEW:
            self._problem(REVIEW_PROBLEM)
        self.state.observe(observation)
        if self.meter.update(observation):
            self._meter_changed()
        change = self.fusion.observe(observation)
        if change is None:
            return
        if change.new:
            self.current_incident = change.incident
            if change.incident.kind == "compaction":
                self.meter.stale = True
                self._compact_sent = False
                self._meter_changed()
            self.checkpoint(change.incident.title(), incident=change.incident.number)
        for notify in self.on_incident:
            notify(change)

    def _meter_changed(self) -> None:
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
        host = self.session.host
        agent = None if host is None else Agent(host.pid, self._agent_env(), self.config.workdir)
        injector = self.injector
        sent = injector.awaiting_acknowledgement() if injector is not None else None
        return self.reader.read(
            self.clock(),
            agent=agent,
            sent=sent,
            overdue=sent is not None and injector is not None and injector.recall_overdue(sent),
            since=self.started_at - 1,
            timer_due=timer_due and not self.checkpointer.busy,
        )

    def apply_tick(self, reads: TickReads) -> None:
        """What the reads found, on the loop: observations, injection, the timer checkpoint."""
        wall = self.clock()
        monotonic = time.monotonic()
        if reads.notes is not None:  # before the hook events: their audit uses the pins
            self.notes = reads.notes
        if self.lock is not None and monotonic - self._last_heartbeat >= HEARTBEAT_SECONDS:
            self._last_heartbeat = monotonic
            self.lock.heartbeat()
        self._hook_events(reads.events, wall)
        if reads.found_transcript is not None:
            self.transcript.follow(reads.found_transcript)
        for observation in reads.transcript:
            self.observe(observation)
        if reads.invariant.problem:
            self._problem(reads.invariant.problem)
        for warning in reads.invariant.warnings:
            self._problem(warning)
        for problem in reads.problems:
            self._problem(problem)
        self.last_checkpoint = reads.last_checkpoint
        self._report_state()
        self._dump_screen()
        injector = self.injector
        if injector is not None:
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
        if self.recorder is not None:
            self.recorder.flush()
        if reads.state_changed:
            self.checkpoint("timer: state changed")

    def _dump_screen(self) -> None:
        if not self._screen_dump.asked():  # the whole screen's text, every tick, for nobody
            return
        problem = self._screen_dump.write(self.session.emulator.display())
        if problem:
            self._problem(problem)

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
        if state != self._reported_state:
            self._reported_state = state
            for notify in self.on_state:
                notify(state)

    def _hook_events(self, records: list[dict], now: float) -> None:
        for record in records:
            label = None if self.recorder is None else landmark(record)
            if label is not None:  # a marker in the recording, for a player to jump to
                self.recorder.mark(label)
            if self.injector is not None:
                self.hook_delivery(record)
            if record.get("kind") == "compact_request" and self.injector is not None:
                try:
                    self.compact_now(by=str(record.get("source") or "cli"))
                except TetherError as error:
                    self._problem(str(error))
            if record.get("kind") != "hook":
                continue
            payload = record.get("payload")
            if isinstance(payload, dict):
                self.transcript.follow(payload.get("transcript_path"))
            for observation in hook_events.observations_from_event(record, now):
                if not self.old_state_report(record, observation):
                    self.observe(observation)

    def _agent_env(self) -> dict[str, str]:
        return self.session.base_env if self.session.base_env is not None else dict(os.environ)

    # -- rehydration ---------------------------------------------------------------

    def _injection_changed(self, status: InjectorStatus) -> None:
        if status.state == "sent":
            self._send_anyway = False
        for notify in self.on_injection:
            notify(status)
