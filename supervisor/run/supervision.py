"""Everything tether does around one agent run, without a UI.

The app composes this with its widgets; tests and benchmarks drive it
headless. Data flows one way: each PTY read goes to the recorder, the stream
and screen detectors and the agent state; hook events (appended to
events.jsonl by `tether hook`), transcript tails and the process exit become
observations too; fusion turns observations into incidents; the injector puts
the rehydrate payload into the agent when it waits for input. Listeners (the
app) hear about incidents, the agent's state, the context meter and problems.
"""

from __future__ import annotations

import asyncio
import functools
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from supervisor.config.keymap import Keymap
from supervisor.config.profiles import Profile, load_profile
from supervisor.errors import TetherError
from supervisor.recognize import hook_events
from supervisor.recognize.agent_state import AgentState
from supervisor.recognize.fusion import Fusion, IncidentChange
from supervisor.recognize.observations import (
    COMPACTION,
    CONTEXT_LOW,
    CONTEXT_USED,
    LOCK,
    UNCLEAN_EXIT,
    USAGE,
    Incident,
    Observation,
)
from supervisor.recognize.process_watch import exit_observation
from supervisor.recognize.screen_detector import ScreenDetector
from supervisor.recognize.stream_detector import StreamDetector
from supervisor.recognize.transcripts import (
    ClaudeTranscript,
    CodexRollout,
    JsonlTail,
    claude_session_of_pid,
    claude_transcript_path,
    newest_jsonl,
)
from supervisor.rehydrate.injector import GitAnswer, Injector, InjectorStatus
from supervisor.store import checkpoints, fsio, invariant, notes
from supervisor.store import lock as supervisor_lock
from supervisor.store.tether_dir import TetherDir, init
from supervisor.terminal.emulator import FeedResult
from supervisor.terminal.pty_host import ExitStatus
from supervisor.terminal.recorder import SessionRecorder
from supervisor.terminal.session import AgentSession

Scheduler = Callable[[float, Callable[[], None]], Any]
Taken = Callable[[checkpoints.Checkpoint | TetherError], None]
USER_QUIET = 1.0  # seconds without a key from the user before tether injects
HALF_TYPED_PATIENCE = 10.0  # ...or, with a line typed but not sent, this long
# The screen detector looks at most this often: a flood's reads come back to back,
# and a screen nobody could read between two of them need not be matched either.
SCAN_INTERVAL = 0.025


@dataclass
class RunConfig:
    """What `tether run` decided: the command, the folder, the profile."""

    argv: list[str]
    workdir: Path
    profile_name: str = "shell"
    title: str = "tether"
    env: dict[str, str] | None = None
    shift_enter: str = "\x1b\r"
    keymap: Keymap = field(default_factory=Keymap)
    side_pane: bool = True
    record: bool = True
    checkpoint_every: float = 300.0  # seconds between timer checkpoints when state changed
    extra_args: list[str] = field(default_factory=list)
    resume: bool = False  # started with the profile's resume command


@dataclass
class ContextMeter:
    """Used / window from the agent's own usage figures, or a percentage from its screen."""

    used: int | None = None
    window: int | None = None
    percent: int | None = None
    stale: bool = False

    def describe(self) -> str:
        if self.used is not None and self.window:
            percent = round(100 * self.used / self.window)
            text = f"{self.used:,}/{self.window:,} ({percent}%)"
        elif self.percent is not None:
            text = f"{self.percent}% used"
        else:
            return ""
        return text + (" stale after compaction" if self.stale else "")


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def agent_argv(profile: Profile, extra: list[str], tether: TetherDir, *, resume: bool) -> list[str]:
    """The agent's command line: the profile's (or resume) command, hook settings, extras."""
    argv = profile.argv(extra, resume=resume)
    if "claude_hooks" in profile.integrations:
        from supervisor.agents.claude_settings import write_settings

        settings = write_settings(tether.root)
        argv[1:1] = ["--settings", str(settings)]
    return argv


class Supervision:
    """The engine side of one `tether run`."""

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
        self.recorder: SessionRecorder | None = None
        self.problems: list[str] = []
        self.started_at = clock()
        self._last_timer_checkpoint = time.monotonic()
        self._stopping = False

        self.fusion = Fusion(self.tether, decisions=self._pinned_decisions)
        self.screen = ScreenDetector(self.profile.markers, replaying=config.resume)
        self.stream = StreamDetector()
        self.state = AgentState()
        self.meter = ContextMeter(window=self.profile.context_window or None)
        self.current_incident: Incident | None = None
        self._was_waiting = False
        self._typed = ""
        self._last_input = 0.0
        self._tail_bytes = b""
        self._decisions_until = 0.0
        self._unfinished_rows: set[int] = set()
        self._scrolled = 0  # lines scrolled off since the screen detector last looked
        self._scan_rows: set[int] = set()  # rows changed since then
        self._last_scan = -SCAN_INTERVAL  # self._monotonic() of that look
        self._monotonic = time.monotonic
        self._scan_timer: asyncio.TimerHandle | None = None
        # Checkpoints waiting for `git status` on a worker thread: (reason, incident, then).
        self._asking_git: dict[asyncio.Future, tuple[str, int | str | None, GitAnswer]] = {}
        self._events_tail: JsonlTail | None = None
        self._transcript_tail: JsonlTail | None = None
        self._transcript: ClaudeTranscript | CodexRollout | None = None
        self._last_discovery = 0.0
        self.injector: Injector | None = None
        self._invariant_stamp: tuple[float, float] | None = None
        self._compact_sent = False  # compact_at_break: sent once per crossing of the threshold

        # Listeners the app subscribes to.
        self.on_incident: list[Callable[[IncidentChange], None]] = []
        self.on_state: list[Callable[[str], None]] = []
        self.on_meter: list[Callable[[ContextMeter], None]] = []
        self.on_problem: list[Callable[[str], None]] = []
        self.on_injection: list[Callable[[InjectorStatus], None]] = []
        self._reported_state = ""
        self._dumped_screen: str | None = None  # TETHER_SCREEN_DUMP: the text last written

    # -- lifecycle -----------------------------------------------------------

    def open(self, scheduler: Scheduler | None = None) -> None:
        """Create `.tether/` if needed, take the folder's lock, start listening."""
        if not self.tether.exists():
            init(self.config.workdir)
        self.lock = supervisor_lock.acquire(self.tether)
        self._events_tail = JsonlTail(self.tether.events, start="end")
        previous = self.lock.previous
        if previous is not None:
            summary = f"the previous tether ({previous.describe()}) died without a clean exit"
            details = {"previous_pid": previous.pid, "previous_started_at": previous.started_at}
            self.observe(
                Observation(UNCLEAN_EXIT, LOCK, self.clock(), summary=summary, details=details)
            )
        self.injector = Injector(
            self.session,
            self.profile,
            self.tether,
            is_waiting=self.ready_for_injection,
            call_later=scheduler,
            ask_git=self.ask_git,
        )
        self.injector.listeners.append(self._injection_changed)
        self.enforce_invariant()
        self.session.listeners.append(self._on_output)
        self.session.exit_listeners.append(self._on_exit)
        self.session.input_listeners.append(self.note_input)

    def start_recording(self) -> None:
        """Begin `sessions/<stamp>-<profile>.cast` and `.txt` at the agent's screen size."""
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
        waiting, self._asking_git = self._asking_git, {}
        if waiting:  # git has not answered: ask it here, once for all of them
            git = checkpoints.git_state(self.tether.work_dir)
            for reason, incident, _then in waiting.values():
                self._write_checkpoint(reason, incident, git)
        if self.recorder is not None:
            try:
                self.recorder.close(self.session.emulator.display())
            except OSError as error:
                self._problem(f"recording not closed cleanly: {error}")
            self.recorder = None
        if self.lock is not None:
            self.lock.release()
            self.lock = None

    def resized(self, cols: int, rows: int) -> None:
        if self.recorder is not None:
            self.recorder.resize(cols, rows)

    def stop_agent(self) -> None:
        """Hang up on the agent because the user asked (quit, restart): not a crash."""
        self._stopping = True
        self.session.stop()

    def restart(self) -> None:
        """Start the agent again with the profile's resume command; rehydrate once it waits."""
        self._stopping = False
        if self.profile.command:
            argv = agent_argv(self.profile, self.config.extra_args, self.tether, resume=True)
        else:  # a plain command (`tether run -- CMD`): run it again
            argv = list(self.config.argv)
        self.screen = ScreenDetector(self.profile.markers, replaying=True)
        self.stream = StreamDetector()
        self.state.restart()
        self._transcript_tail, self._transcript = None, None
        self.session.start(argv=argv)
        self.tether.record_event("agent_restart", "supervisor", argv=argv)
        self.rehydrate(reason="restart after crash")

    def _problem(self, message: str) -> None:
        self.problems.append(message)
        for notify in self.on_problem:
            notify(message)

    # -- input from the user -----------------------------------------------------

    def ready_for_injection(self) -> bool:
        """The agent waits for input and the person is not typing to it.

        An injection while the user types would interleave with their keys (and a
        half-typed line would swallow the payload): it waits until the user has
        submitted or cleared their line and paused for USER_QUIET seconds. A line
        left half-typed (or cleared with keys tether does not follow) stops
        holding the payload back after HALF_TYPED_PATIENCE seconds.
        """
        now = self.clock()
        idle = now - self._last_input
        return (
            self.state.ready_for_input(now)
            and idle >= USER_QUIET
            and (not self._typed or idle >= HALF_TYPED_PATIENCE)
        )

    def note_input(self, data: bytes) -> None:
        """Keys the user sent the agent: ends a resume replay; typed DECISION: lines are pinned."""
        self._last_input = self.clock()
        self.screen.note_input()
        text = data.decode("utf-8", "ignore")
        if text.startswith("\x1b[200~"):
            text = text[6:].removesuffix("\x1b[201~")
        elif text.startswith("\x1b"):
            return
        for char in text:
            if char in "\r\n":
                self._capture_decisions([self._typed])
                self._typed = ""
            elif char in "\x7f\x08":
                self._typed = self._typed[:-1]
            elif char in "\x03\x15":
                self._typed = ""
            elif char >= " ":
                self._typed += char

    def _capture_decisions(self, lines: list[str]) -> None:
        found = notes.decision_lines(lines)
        if not found:
            return
        try:
            self.tether.add_decisions(found, "screen")
        except TetherError as error:
            self._problem(str(error))

    def _pinned_decisions(self) -> list[str]:
        try:
            return notes.pinned_decisions(self.tether.read_notes())
        except TetherError:
            return []

    # -- the agent's output ---------------------------------------------------------

    def _on_output(self, data: bytes, result: FeedResult) -> None:
        now = self.clock()
        recorder = self.recorder
        if recorder is not None:
            recorder.record(data)
            if result.scrolled_off:
                recorder.scrolled_off(result.scrolled_off)
        self.state.note_output(now)
        observations = self.stream.feed(data, now)
        # Only the seam is joined: copying the whole read would cost every read.
        if b"DECISION:" in data or b"DECISION:" in self._tail_bytes + data[:8]:
            self._decisions_until = now + 1.0  # the line may be finished in the next reads
        self._tail_bytes = data[-8:]
        self._scrolled += len(result.scrolled_off)
        if result.dirty:
            self._scan_rows |= result.dirty
            wait = self._last_scan + SCAN_INTERVAL - self._monotonic()
            if wait <= 0 or not self._defer_scan(wait):
                observations += self._scan_screen(now)
        if now < self._decisions_until and (result.dirty or self._unfinished_rows):
            self._capture_printed_decisions(result.dirty)
        for observation in observations:
            self.observe(observation)

    def _scan_screen(self, now: float) -> list[Observation]:
        """Match the rows changed since the last look (and count the lines scrolled off)."""
        rows, self._scan_rows = self._scan_rows, set()
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

    def _capture_printed_decisions(self, dirty: set[int]) -> None:
        """`DECISION:` lines the agent printed (not the line still being written at the cursor).

        Only looked for in the second after the bytes `DECISION:` went by, so the
        hot path does not turn every changed row into text for it. A row still
        under the cursor is looked at again once the cursor has left it (the
        line feed may come in a later read that changes no cell of that row).
        """
        emulator = self.session.emulator
        cursor_row = emulator.cursor.y
        rows = {y for y in dirty | self._unfinished_rows if 0 <= y < emulator.rows}
        self._unfinished_rows = set()
        lines = []
        for y in rows:
            text = emulator.row_text(y)
            if "DECISION:" not in text:
                continue
            if y == cursor_row:
                self._unfinished_rows.add(y)
            else:
                lines.append(text.strip())
        if lines:
            self._capture_decisions(lines)

    def observe(self, observation: Observation) -> None:
        """One observation from any source: state, meter, fusion, incident listeners."""
        self.state.observe(observation)
        self._update_meter(observation)
        change = self.fusion.observe(observation)
        if change is None:
            return
        if change.new:
            self.current_incident = change.incident
            if change.incident.kind == "compaction":
                self.meter.stale = True
                self._compact_sent = False
                self._meter_changed()
            self.checkpoint(
                f"incident #{change.incident.number}: {change.incident.title()}",
                incident=change.incident.number,
            )
        for notify in self.on_incident:
            notify(change)

    def _update_meter(self, observation: Observation) -> None:
        details = observation.details
        if observation.kind == USAGE and isinstance(details.get("used"), int):
            self.meter.used = details["used"]
            if isinstance(details.get("window"), int):
                self.meter.window = details["window"]
            self.meter.stale = False
        elif observation.kind in (CONTEXT_USED, CONTEXT_LOW) and "percent" in details:
            percent = int(details["percent"])
            self.meter.percent = percent if observation.kind == CONTEXT_USED else 100 - percent
            if self.meter.used is None:
                self.meter.stale = False
        elif observation.kind != COMPACTION:
            return
        self._meter_changed()

    def _meter_changed(self) -> None:
        for notify in self.on_meter:
            notify(self.meter)

    def _on_exit(self, status: ExitStatus) -> None:
        now = self.clock()
        self.observe(exit_observation(status.code, status.signal, now, requested=self._stopping))
        try:
            self.tether.record_event(
                "agent_exit",
                "process",
                code=status.code,
                signal=status.signal,
                description=status.describe(),
            )
        except TetherError as error:
            self._problem(str(error))
        self.checkpoint(f"agent {status.describe()}")
        self._report_state()

    # -- checkpoints -------------------------------------------------------------

    def checkpoint(
        self, reason: str, *, incident: int | str | None = None, then: Taken | None = None
    ) -> None:
        """Take a checkpoint without holding the event loop for `git status` (see :meth:`ask_git`).

        ``then`` hears the checkpoint, or the error that kept it from being written, on
        the loop; without ``then`` an error is reported as a problem.
        """
        write = functools.partial(self._write_checkpoint, reason, incident, then=then)
        self.ask_git(reason, incident, write)

    def ask_git(self, reason: str, incident: int | str | None, then: GitAnswer) -> None:
        """Ask `git status` for the checkpoint ``reason``; ``then(git)`` takes it with the answer.

        In a big repository `git status` takes up to its 2 s timeout, and checkpoints are
        taken while the agent's screen is live: incidents, exits, the timer, the user's
        key, every injection. With a loop running, git is asked on a worker thread and
        ``then`` called on the loop when it answers; without one (the CLI, tests), at
        once. If tether closes first, :meth:`close` asks git itself and writes the
        checkpoint without ``then``: what would follow it (a payload, a notification) has
        nobody left to go to.
        """
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            then(checkpoints.git_state(self.tether.work_dir))
            return
        asked = loop.run_in_executor(None, checkpoints.git_state, self.tether.work_dir)
        self._asking_git[asked] = (reason, incident, then)
        asked.add_done_callback(self._git_answered)

    def _git_answered(self, _asked: asyncio.Future) -> None:
        """Go on with the checkpoints git has answered for, in the order they were asked.

        Two calls race on their threads; an agent's exit would otherwise be numbered
        before the incident it caused. One not yet answered holds back those after it.
        """
        while self._asking_git:  # empty once close() wrote them all
            first = next(iter(self._asking_git))
            if not first.done():
                return
            _reason, _incident, then = self._asking_git.pop(first)
            failed = first.cancelled() or first.exception() is not None
            then(None if failed else first.result())

    def _write_checkpoint(
        self,
        reason: str,
        incident: int | str | None,
        git: dict | None,
        then: Taken | None = None,
    ) -> None:
        try:
            snapshot = checkpoints.take(self.tether, reason, incident=incident, git=git)
        except TetherError as error:
            if then is None:
                self._problem(str(error))
            else:
                then(error)
            return
        if then is not None:
            then(snapshot)

    # -- the clock -----------------------------------------------------------------

    def tick(self, now: float | None = None) -> None:
        """Called a few times a second: hooks, transcripts, injection, recording, timer."""
        monotonic = time.monotonic() if now is None else now
        wall = self.clock()
        self._poll_hook_events(wall)
        self._poll_transcript(wall)
        self.enforce_invariant()
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
            if injector.check_acknowledged() and injector.last is not None:
                number = injector.last.request.incident  # the injection's own incident
                if isinstance(number, int):
                    self.fusion.acknowledge(number)
        if self.recorder is not None:
            self.recorder.flush()
        if monotonic - self._last_timer_checkpoint >= self.config.checkpoint_every:
            self._last_timer_checkpoint = monotonic
            try:
                changed = not self._asking_git and checkpoints.changed_since_last(self.tether)
            except TetherError as error:
                self._problem(str(error))
            else:
                if changed:
                    self.checkpoint("timer: state changed")

    def _dump_screen(self) -> None:
        """Debug aid (e2e fidelity tests): with ``TETHER_SCREEN_DUMP=<path>`` set, write the
        agent's emulator text there, atomically and only when it changed."""
        path = os.environ.get("TETHER_SCREEN_DUMP")
        if not path:
            return
        text = "\n".join(self.session.emulator.display()) + "\n"
        if text == self._dumped_screen:
            return
        try:
            fsio.atomic_write_text(Path(path), text)
        except TetherError as error:
            if self._dumped_screen != "":  # say it once, then keep trying quietly
                self._problem(f"TETHER_SCREEN_DUMP not written: {error}")
            self._dumped_screen = ""
            return
        self._dumped_screen = text

    def enforce_invariant(self) -> invariant.InvariantResult | None:
        """Disk wins: a cursor that disagrees with artifacts.jsonl is rolled to the disk truth.

        Checked at start and whenever progress.json or artifacts.jsonl changed
        (their modification times); the fix is recorded as an event by the store,
        and the next payload carries the invariant's state.
        """
        stamp = (_mtime(self.tether.progress), _mtime(self.tether.artifacts))
        if stamp == self._invariant_stamp:
            return None
        self._invariant_stamp = stamp
        try:
            result = invariant.check(self.tether)
            if result.kind in ("cursor-ahead", "cursor-behind", "bad-progress"):
                fixed = invariant.fix(self.tether, source="supervisor")
                self._invariant_stamp = (_mtime(self.tether.progress), stamp[1])
                self._problem(f"cursor fixed from disk: {fixed.before.message}")
                return fixed.after
        except TetherError as error:
            self._problem(str(error))
            return None
        return result

    def _report_state(self) -> None:
        state = "exited" if self.session.exit_status else self.state.state(self.clock())
        if state != self._reported_state:
            self._reported_state = state
            for notify in self.on_state:
                notify(state)

    def _poll_hook_events(self, now: float) -> None:
        if self._events_tail is None:
            return
        for record, _history in self._events_tail.poll():
            if record.get("kind") == "auto_rehydrate" and self.injector is not None:
                self.injector.track_external(record)
            if record.get("kind") == "compact_request" and self.injector is not None:
                try:
                    self.compact_now(by=str(record.get("source") or "cli"))
                except TetherError as error:
                    self._problem(str(error))
            if record.get("kind") != "hook":
                continue
            payload = record.get("payload")
            if isinstance(payload, dict):
                self._follow_transcript(payload.get("transcript_path"))
            for observation in hook_events.observations_from_event(record, now):
                self.observe(observation)

    def _agent_env(self) -> dict[str, str]:
        return self.session.base_env if self.session.base_env is not None else dict(os.environ)

    def _follow_transcript(self, path: object) -> None:
        if not isinstance(path, str) or not path:
            return
        if self._transcript_tail is not None and str(self._transcript_tail.path) == path:
            return
        target = Path(path)
        new_file = not target.exists() or target.stat().st_mtime >= self.started_at - 1
        previous = self._transcript
        self._transcript_tail = JsonlTail(target, start=0 if new_file else "tail")
        if "claude_transcript" in self.profile.integrations:
            self._transcript = ClaudeTranscript()
        else:
            self._transcript = CodexRollout()
        if previous is not None:
            self._transcript.session_id = getattr(previous, "session_id", None)

    def _discover_transcript(self, now: float) -> None:
        """Without hooks, find the agent's transcript file ourselves every few seconds."""
        if now - self._last_discovery < 2.0 or self.session.host is None:
            return
        self._last_discovery = now
        env = self._agent_env()
        integrations = self.profile.integrations
        if "claude_transcript" in integrations:
            config = Path(env.get("CLAUDE_CONFIG_DIR") or Path(env.get("HOME", "~")) / ".claude")
            session = claude_session_of_pid(self.session.host.pid, config.expanduser())
            if session:
                path = claude_transcript_path(Path(self.config.workdir), session, config)
                self._follow_transcript(str(path))
        elif "codex_rollout" in integrations:
            home = Path(env.get("CODEX_HOME") or Path(env.get("HOME", "~")) / ".codex")
            day = time.strftime("%Y/%m/%d", time.localtime(now))
            newest = newest_jsonl(home.expanduser() / "sessions" / day, since=self.started_at - 1)
            if newest is not None:
                self._follow_transcript(str(newest))

    def _poll_transcript(self, now: float) -> None:
        self._discover_transcript(now)
        tail, parser = self._transcript_tail, self._transcript
        if tail is None or parser is None:
            return
        for record, history in tail.poll():
            for observation in parser.feed(record, now, history=history):
                self.observe(observation)

    # -- rehydration ---------------------------------------------------------------

    def _injection_changed(self, status: InjectorStatus) -> None:
        for notify in self.on_injection:
            notify(status)

    def build_payload(self, *, checkpoint: int | None = None):
        from supervisor.rehydrate.payload import build_payload

        return build_payload(
            self.tether, self.profile, checkpoint=checkpoint, incident=self.current_incident
        )

    def rehydrate(self, text: str | None = None, *, reason: str = "rehydrate") -> str:
        """Send the payload (or ``text``, an edited one) now, or queue it until the agent waits.

        After a partial recall check, only the decisions the agent did not restate are
        sent again (reason ``resend-missing``); every payload asks for `tether ack`.
        """
        if self.injector is None:
            raise TetherError("the supervisor is not open")
        from supervisor.rehydrate.tokens import TokenCount

        number = self.current_incident.number if self.current_incident else None
        recovery = {"restate": "all"}  # the injection is a recovery: its recall is checked
        if text is None:
            resent = self._resend_missing(number)
            if resent is not None:
                return resent
            payload = self.build_payload()
            tokens = TokenCount(payload.tokens, payload.exact, payload.encoding)
            result = self.injector.request(
                payload.text, reason, incident=number, tokens=tokens, details=recovery
            )
        else:
            result = self.injector.request(text, reason, incident=number, details=recovery)
        if result == "sent":
            self.screen.note_input()
        return result

    def _resend_missing(self, number: int | None) -> str | None:
        """After a partial recall of this incident's recovery: send only what is missing."""
        from supervisor.rehydrate import recall_check

        injector = self.injector
        recall = injector.last_recall if injector is not None else None
        if injector is None or recall is None or recall.result != recall_check.PARTIAL:
            return None
        if recall.incident != number or not recall.missing:
            return None  # a newer incident wants the whole payload
        text = recall_check.resend_text(self._pinned_decisions(), recall)
        restate = [decision for decision, _terms in recall.missing]
        result = injector.request(
            text, recall_check.RESEND_REASON, incident=number, details={"restate": restate}
        )
        if result == "sent":
            self.screen.note_input()
        return result

    def compact_now(self, *, by: str = "key") -> str:
        """Compact the agent at this break, with the pins as the summarizer's instructions.

        The profile's ``compact_command`` (Claude Code's ``/compact <instructions>``) is
        typed into the agent once it waits for input, like any injection; a profile
        without one cannot be compacted from outside.
        """
        if self.injector is None:
            raise TetherError("the supervisor is not open")
        template = self.profile.compact_command
        if not template:
            raise TetherError(f"profile {self.profile.name} has no compact_command to send")
        from supervisor.rehydrate.summary_instructions import instructions

        text = template.replace("{instructions}", instructions(self.tether)).strip()
        return self.injector.request(
            text, "compact", expect_ack=False, typed=True, details={"by": by}
        )

    def compact_offered(self) -> bool:
        """Whether the context meter passed the profile's threshold: the banner offers a
        compaction now, at a break, before the agent compacts by itself mid-task."""
        threshold = self.profile.compact_offer_percent
        if threshold <= 0 or not self.profile.compact_command or self.meter.stale:
            return False
        meter = self.meter
        if meter.used is not None and meter.window:
            percent = 100 * meter.used / meter.window
        elif meter.percent is not None:
            percent = meter.percent
        else:
            return False
        return percent >= threshold

    def send_brief(self) -> None:
        """The initial brief, queued until the agent first waits for input."""
        if self.injector is None:
            return
        from supervisor.rehydrate.brief import brief_text

        self.injector.request(brief_text(), "initial brief", expect_ack=False)
