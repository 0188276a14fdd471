"""One take of a capture: an isolated agent setup, its PTY, the markers, and the files written.

``record_captures.py`` holds the scenarios (what is typed, what is waited for); this is
what every scenario shares: the harness's homes and environment for each agent
(``agents.prepare_*_home``, ``agents.*_env``, its hook logger), the recorder, and the
writing of ``.raw``, ``.cast``, ``.events.json``, transcripts and hook log.
"""

from __future__ import annotations

import codecs
import json
import re
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path

from tests.e2e import agents
from tests.e2e.capture_events import Marker, events_json, texts_on_screen
from tests.e2e.fake_server import ServerProcess
from tests.e2e.pty_recorder import PtyRecorder, Recording, RecordingTimeout

COLS, ROWS = 120, 40

# --------------------------------------------------------------------------- one take


@dataclass
class Setup:
    """An isolated agent installation: where it lives and how it is started."""

    agent: str
    home: Path
    project: Path
    env: dict[str, str]
    binary: Path
    codex_home: Path | None = None
    hook_log: Path | None = None


@dataclass
class Take:
    """One recording in progress: the PTY, and the markers the recorder waited for."""

    setup: Setup
    recorder: PtyRecorder
    markers: list[Marker] = field(default_factory=list)
    hooks_before: int = 0  # hook log lines written before this take (a resume's prefix)
    transcripts_before: dict[Path, int] = field(default_factory=dict)
    watched: list[tuple[str, str]] = field(default_factory=list)

    def _since(self) -> int:
        inputs = self.recorder.recording.inputs
        return inputs[-2][1] if len(inputs) >= 2 and inputs[-1][3] == "Enter" else 0

    def expect(self, kind: str, pattern: str, timeout: float = 30.0, keep: bool = True) -> str:
        """Wait until ``pattern`` is on screen; keep what matched as a marker (``keep``:
        not for texts such as "✻ Churned for 1s" that an earlier turn left on screen)."""
        text = self.recorder.wait_screen(pattern, timeout).group(0).strip()
        if keep:
            self.markers.append(Marker(kind, text, search_from=self._since()))
        return text

    def note(self, kind: str, text: str | None = None, data: bytes | None = None) -> None:
        """A marker to look for afterwards, not waited on (absent ones are listed as such)."""
        self.markers.append(Marker(kind, text, data, search_from=self._since()))

    def maybe(self, pattern: str, timeout: float) -> bool:
        """Give the agent up to ``timeout`` seconds to show ``pattern``; fine if it does not."""
        try:
            self.recorder.wait_screen(pattern, timeout)
        except RecordingTimeout:
            return False
        return True

    def watch(self, kind: str, pattern: str) -> None:
        """Every distinct text matching ``pattern`` that was ever on screen becomes a marker
        (worked out when the take is written): for footers shown only while busy."""
        self.watched.append((kind, pattern))

    def line(self, text: str, enter_delay: float = 0.5) -> None:
        self.recorder.type_line(text, enter_delay)

    def settle(self, seconds: float = 1.0) -> None:
        self.recorder.wait_quiet(seconds)

    def screen_hit(self, kind: str, pattern: str) -> None:
        """A marker whose exact text is only known from the screen (ids, counts)."""
        hit = re.search(pattern, self.recorder.screen_text())
        if hit:
            self.note(kind, hit.group(0).strip())


@dataclass
class Context:
    bins: agents.AgentBins
    server: ServerProcess
    root: Path
    out: Path
    setups: dict[str, Setup] = field(default_factory=dict)  # scenario -> its setup (resumes)
    timings: dict[str, float] = field(default_factory=dict)
    recorders: list[PtyRecorder] = field(default_factory=list)  # every agent started


def _hook_launcher(root: Path, log: Path) -> dict[str, str]:
    """The harness's hook logger (``agents.py hook-log``) behind a short script, so the
    ``PreCompact [<command>] completed successfully`` lines Claude prints stay short."""
    script = root / "hooklog"
    me = Path(agents.__file__).resolve()
    script.write_text(
        "#!/bin/sh\n"
        f"exec {shlex.quote(sys.executable)} {shlex.quote(str(me))} hook-log "
        f'{shlex.quote(str(log))} "$1"\n'
    )
    script.chmod(0o755)
    return {event: f"{script} {event}" for event in agents.HOOK_EVENTS}


def claude_setup(ctx: Context, name: str) -> Setup:
    root = ctx.root / name
    home, project, log = root / "home", root / "proj", root / "hooks.jsonl"
    project.mkdir(parents=True)
    agents.prepare_claude_home(home, project, hooks=_hook_launcher(root, log))
    env = agents.claude_env(ctx.bins, home, ctx.server.url)
    return Setup("claude", home, project, env, ctx.bins.claude, hook_log=log)


def codex_setup(ctx: Context, name: str, hooks: bool = False) -> Setup:
    """With ``hooks``, the harness's hook logger in CODEX_HOME/hooks.json (start Codex with
    ``--dangerously-bypass-hook-trust``, or it asks to review them first)."""
    root = ctx.root / name
    home, codex_home, project = root / "home", root / "codexhome", root / "proj"
    home.mkdir(parents=True)
    project.mkdir(parents=True)
    log = root / "hooks.jsonl" if hooks else None
    logger = _hook_launcher(root, log) if log else None
    agents.prepare_codex_home(codex_home, project, ctx.server.url, hooks=logger)
    env = agents.codex_env(ctx.bins, home, codex_home)
    return Setup("codex", home, project, env, ctx.bins.codex, codex_home=codex_home, hook_log=log)


def _transcripts(setup: Setup) -> list[Path]:
    if setup.agent == "codex":
        assert setup.codex_home is not None
        return sorted(agents.codex_rollouts(setup.codex_home), key=lambda p: p.name)
    files = agents.claude_transcripts(setup.home)
    order = [  # sessions in the order they started, from the hook log
        h["payload"].get("session_id")
        for h in agents.read_hook_log(setup.hook_log)
        if h["event"] == "SessionStart" and isinstance(h["payload"], dict)
    ]
    rank = {sid: i for i, sid in enumerate(dict.fromkeys(order))}
    return sorted(files, key=lambda p: (rank.get(p.stem, len(rank)), p.stat().st_mtime))


def start(ctx: Context, setup: Setup, argv: list[str]) -> Take:
    before = {p: p.stat().st_size for p in _transcripts(setup)}
    hooks = len(agents.read_hook_log(setup.hook_log)) if setup.hook_log else 0
    recorder = PtyRecorder([str(setup.binary), *argv], setup.env, setup.project, COLS, ROWS)
    ctx.recorders.append(recorder)  # closed by record() whatever happens
    return Take(setup, recorder, hooks_before=hooks, transcripts_before=before)


# --------------------------------------------------------------------------- writing


def cast_text(recording: Recording) -> str:
    header = {
        "version": 2,
        "width": recording.cols,
        "height": recording.rows,
        "timestamp": int(recording.spawn_epoch),
        "env": {"TERM": "xterm-256color"},
    }
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    lines = [(t, 1, "o", decoder.decode(data)) for t, data in recording.reads]
    lines += [(t, 0, "i", data.decode()) for t, _, data, _ in recording.inputs]
    out = [json.dumps(header)]
    for t, _, kind, text in sorted(lines, key=lambda line: (line[0], line[1])):
        if text:
            out.append(json.dumps([t, kind, text], ensure_ascii=False))
    return "\n".join(out) + "\n"


def _hook_summary(entry: dict, spawn_epoch: float) -> dict:
    payload = entry["payload"] if isinstance(entry["payload"], dict) else {}
    summary = {"event": entry["event"], "t": round(entry["t"] - spawn_epoch, 3)}
    for key in ("source", "trigger", "reason", "hook_event_name"):
        if key in payload:
            summary[key] = payload[key]
    return summary


# Claude Code 2.1.332 copies its whole system prompt, tool list and skill list into the
# transcript on every turn (attachment and api-request lines, up to 60 KB a line); tether
# reads none of it. Those long strings are cut, so a capture stays a few tens of KB.
ELIDE_TYPES = {
    *("attachment", "api-request", "api-request-shape", "api-request-blob"),  # Claude Code
    *("session_meta", "turn_context", "world_state"),  # Codex: instructions, settings
}
ELIDE_OVER = 512  # characters of JSON


def _size(value) -> int:
    return len(json.dumps(value, ensure_ascii=False))


def _elide(value, depth: int = 0):
    """Keep the keys of the line and of its first two levels; cut any bigger value."""
    if isinstance(value, dict) and depth < 2:
        return {k: _elide(v, depth + 1) if _size(v) > ELIDE_OVER else v for k, v in value.items()}
    return f"<elided by record_captures: {_size(value)} characters of JSON>"


def trimmed_transcript(data: bytes) -> tuple[bytes, int]:
    """The transcript with the long strings of bulky line types elided; lines changed."""
    out, changed = [], 0
    for line in data.splitlines(keepends=True):
        try:
            entry = json.loads(line)
        except ValueError:
            out.append(line)  # a torn line stays as it was
            continue
        if isinstance(entry, dict) and entry.get("type") in ELIDE_TYPES:
            small = _elide(entry) if _size(entry) > ELIDE_OVER else entry
            if small != entry:
                changed += 1
                line = (json.dumps(small, ensure_ascii=False) + "\n").encode()
        out.append(line)
    return b"".join(out), changed


def finish(ctx: Context, name: str, take: Take, note: str) -> None:
    """Write every file of one capture; the transcripts that changed during the take."""
    recording = take.recorder.recording
    setup = take.setup
    out = ctx.out
    (out / f"{name}.raw").write_bytes(recording.raw)
    (out / f"{name}.cast").write_text(cast_text(recording))
    hooks_meta = None
    if setup.hook_log is not None:
        lines = setup.hook_log.read_text().splitlines() if setup.hook_log.exists() else []
        mine = lines[take.hooks_before :]
        (out / f"{name}.hooks.jsonl").write_text("".join(line + "\n" for line in mine))
        hooks_meta = [_hook_summary(json.loads(line), recording.spawn_epoch) for line in mine]
    changed = [
        path
        for path in _transcripts(setup)
        if take.transcripts_before.get(path) != path.stat().st_size
    ]
    for stale in out.glob(f"{name}.transcript*.jsonl"):
        stale.unlink()
    sources = []
    for index, path in enumerate(changed):
        suffix = "transcript" if index == 0 else f"transcript-{index + 1}"
        data, elided = trimmed_transcript(path.read_bytes())
        (out / f"{name}.{suffix}.jsonl").write_bytes(data)
        sources.append(
            {
                "file": f"{name}.{suffix}.jsonl",
                "agent_path": str(path.relative_to(setup.codex_home or setup.home)),
                "appended_to_earlier_run": path in take.transcripts_before,
                "lines_with_long_strings_elided": elided,
            }
        )
    version = agents.CLAUDE_VERSION if setup.agent == "claude" else agents.CODEX_VERSION
    package = agents.CLAUDE_PACKAGE if setup.agent == "claude" else agents.CODEX_PACKAGE
    extra = {
        "agent": {"package": package, "version": version},
        "recorded_by": "tests/e2e/record_captures.py",
        "description": note,
        "transcripts": sources,
    }
    markers = list(take.markers)
    for kind, pattern in take.watched:
        markers += [
            Marker(kind, text, search_from=at) for text, at in texts_on_screen(recording, pattern)
        ]
    meta = events_json(name, recording, markers, hooks_meta, extra)
    (out / f"{name}.events.json").write_text(json.dumps(meta, indent=1, ensure_ascii=False) + "\n")
