"""`tether init|status|note|checkpoint|check|history|show|diff|restore`: the store from a shell.

Agents call these in their loops, so this module imports only the store
modules it needs, and each of those is plain Python without Textual.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from supervisor.cli import add_dir_option
from supervisor.errors import TetherError
from supervisor.shown import json_shown, shown
from supervisor.store.fsio import write_hint
from supervisor.store.tether_dir import TetherDir
from supervisor.times import parse_time


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    add_dir_option(parser)
    if name == "init":
        parser.add_argument("--goal", help="the task's goal (asked for when omitted on a terminal)")
    elif name in ("status", "check", "show", "history"):
        parser.add_argument("--json", action="store_true", help="machine-readable output")
    if name == "check":
        parser.add_argument("--fix", action="store_true", help="roll the cursor to the disk truth")
    elif name == "note":
        parser.add_argument(
            "section",
            help="phase | decision | rejected | done | unproven | next | a section notes.md has",
        )
        parser.add_argument("text", nargs="+", help="the text ('-' reads it from stdin)")
        parser.epilog = (
            "phase and next replace their section (one current value); decision pins a "
            "timestamped item; every other section gets a new '- ' item at its end. An unknown "
            "name is refused (a typo would lose the note): add its '## ' heading first"
        )
    elif name == "checkpoint":
        parser.add_argument("-m", "--message", default="manual", metavar="WHY", help="reason")
        parser.add_argument("--incident", help="the incident this checkpoint belongs to")
    elif name == "history":
        parser.add_argument("-n", "--limit", type=int, default=20, help="newest N (0: all)")
    elif name in ("show", "restore"):
        parser.add_argument("seq", type=int, metavar="N", help="checkpoint number")
    elif name == "diff":
        parser.add_argument("a", help="checkpoint number, or live")
        parser.add_argument("b", nargs="?", default="live", help="checkpoint number, or live")


def run(args: argparse.Namespace) -> int:
    handler = _HANDLERS[args.command]
    try:
        return handler(args)
    except BrokenPipeError:  # `tether show N | head`: the reader has what it wanted
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as error:  # anything the store did not already word for a person
        where = error.filename or args.dir
        raise TetherError(f"{where}: {error.strerror}; {write_hint(error)}") from error


def _out(text: str = "") -> None:
    """A line for a person: whatever it quotes from `.tether/` is shown, never acted on."""
    sys.stdout.write(shown(text) + "\n")


def _print_json(data: Any) -> None:
    """Exact JSON, with what a terminal could act on written as ``\\u`` escapes."""
    sys.stdout.write(json_shown(json.dumps(data, indent=2, ensure_ascii=False)) + "\n")


# -- init ------------------------------------------------------------------------------------


def _init(args: argparse.Namespace) -> int:
    from supervisor.store.tether_dir import init

    goal = args.goal
    if goal is None and sys.stdin.isatty() and not TetherDir.at(args.dir).task.exists():
        try:
            goal = input("Goal of this task (one line, Enter to fill in later): ")
        except EOFError:
            goal = None
    result = init(args.dir, goal)
    if result.created:
        _out(f"created in {result.tether.root}: {', '.join(result.created)}")
    if result.kept:
        _out(f"already there, left as they were: {', '.join(result.kept)}")
    if goal and "task.md" in result.kept:
        print(
            f"tether init: the goal was not written: {result.tether.task} already exists; "
            "edit its ## Goal to change it",
            file=sys.stderr,
        )
        return 1
    return 0


# -- status ----------------------------------------------------------------------------------


def _age(stamp: str | None) -> str:
    from datetime import UTC, datetime

    when = parse_time(stamp)
    if when is None:
        return "?"
    seconds = max(0, int((datetime.now(UTC) - when).total_seconds()))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit} ago"
    return f"{seconds}s ago"


def _recall_report(tether: TetherDir) -> dict[str, Any] | None:
    """The last recovery and its recall check (None while nothing was checked yet)."""
    from supervisor.rehydrate.recall_check import RecallCheck, latest_recovery

    recovery, checked = latest_recovery(tether)
    if recovery is None:
        return None
    if checked is None:
        return {"injection_at": recovery.at, "incident": recovery.incident, "result": None}
    check = RecallCheck.from_event(checked)
    return {**check.to_event(), "describe": check.describe()}


def _audit_report(tether: TetherDir) -> dict[str, Any] | None:
    """The last incident's loss audit (None when it had none): changed facts first."""
    from supervisor.rehydrate.payload import latest_incident

    incident = latest_incident(tether)
    if incident is None or not isinstance(incident.get("audit"), dict):
        return None
    audit = incident["audit"]
    changed = [
        f"{c.get('pinned')} → {c.get('now')}"
        for row in audit.get("changed") or []
        if isinstance(row, dict)
        for c in row.get("changed") or []
        if isinstance(c, dict)
    ]
    lost, degraded = len(audit.get("lost") or []), len(audit.get("degraded") or [])
    return {"incident": incident.get("number"), "changed": changed, "lost": lost,
            "degraded": degraded}  # fmt: skip


def status_report(tether: TetherDir) -> dict[str, Any]:
    """Everything `tether status` shows, each part read cheaply (tails and names only)."""
    from supervisor.store import checkpoints, invariant, lock

    problems: list[str] = []
    try:
        progress = tether.read_progress()
        phase, cursor, updated_at = progress.phase, progress.cursor, progress.updated_at
    except TetherError as error:
        phase, cursor, updated_at = None, None, None
        problems.append(str(error))
    verdict = invariant.check(tether)
    problems.extend(p for p in [verdict.message, *verdict.warnings] if p not in problems)
    if verdict.ok or verdict.kind not in (invariant.BAD_PROGRESS, invariant.BAD_ARTIFACT):
        problems = [p for p in problems if p != verdict.message]
    last: dict[str, Any] | None = None
    seqs = checkpoints.list_seqs(tether)
    if seqs:
        try:
            checkpoint = checkpoints.load(tether, seqs[-1])
            last = {"seq": checkpoint.seq, "at": checkpoint.at, "reason": checkpoint.reason}
        except TetherError as error:
            last = {"seq": seqs[-1], "at": None, "reason": None}
            problems.append(str(error))
    lock_state, holder = lock.inspect(tether)
    lock_state = SUPERVISOR_STATES.get(lock_state, lock_state)
    recall = _recall_report(tether)
    if recall is not None and recall["result"] is None:  # waited for only while a run lasts
        recall["waiting"] = lock_state == "running"
    return {
        "recall": recall,
        "loss_audit": _audit_report(tether),
        "dir": str(tether.root),
        "phase": phase,
        "cursor": cursor,
        "updated_at": updated_at,
        "invariant": verdict.to_dict(),
        "checkpoints": len(seqs),
        "last_checkpoint": last,
        "incidents": tether.incident_count(),
        "supervisor": {
            "state": lock_state,
            "pid": holder.pid if holder else None,
            "started_at": holder.started_at if holder else None,
            "agent_pid": holder.agent_pid if holder else None,
            "agent_running": bool(holder and holder.agent_alive),
            "last_end": _last_end(tether) if lock_state == "not running" else None,
        },
        "problems": problems,
    }


def _last_end(tether: TetherDir) -> dict[str, Any] | None:
    """How the last supervisor ended cleanly (a quit, a closed terminal, a SIGTERM)."""
    from supervisor.store.fsio import iter_jsonl_reversed

    try:
        for event in iter_jsonl_reversed(tether.events, containing=b'"tether_ended"'):
            if event.get("kind") == "tether_ended":
                return {"at": event.get("at"), "reason": event.get("reason")}
    except (OSError, TetherError):
        pass
    return None


# The lock's states as `tether status` says them, in its text and in its JSON alike.
SUPERVISOR_STATES = {"free": "not running", "held": "running", "stale": "died"}


def _status(args: argparse.Namespace) -> int:
    tether = TetherDir.at(args.dir)
    if not tether.exists():
        from supervisor.cli.demo import demo_folder

        demo = TetherDir.at(demo_folder())
        if demo.exists():  # someone who just ran `tether demo` here looks for its state
            raise TetherError(
                f"no .tether/ in {tether.work_dir}; run `tether init` "
                f"(`tether demo` keeps its own: tether status --dir {demo.work_dir})"
            )
    report = status_report(TetherDir.require(args.dir))
    if args.json:
        _print_json(report)
        return 0
    verdict = report["invariant"]
    last = report["last_checkpoint"]
    supervisor = report["supervisor"]
    _out(f"phase:      {report['phase'] if report['phase'] is not None else '?'}")
    _out(f"cursor:     {report['cursor'] if report['cursor'] is not None else '?'}")
    _out(f"invariant:  {'ok' if verdict['ok'] else 'VIOLATED'}: {verdict['message']}")
    if last:
        _out(
            f"checkpoint: #{last['seq']} {_age(last['at'])} ({last['reason']}), "
            f"{report['checkpoints']} in all"
        )
    else:
        _out("checkpoint: none yet (`tether checkpoint`)")
    _out(f"incidents:  {report['incidents']}")
    audit = report["loss_audit"]
    if audit is not None:
        parts = [f"changed: {'; '.join(audit['changed'])}"] if audit["changed"] else []
        parts += [f"{audit[k]} {k}" for k in ("lost", "degraded") if audit[k]]
        _out(f"audit:      #{audit['incident']}: {', '.join(parts) or 'pins kept'}")
    recall = report["recall"]
    if recall is not None:
        if recall["result"] is None and not recall.get("waiting"):
            _out("recall:     not checked: the run ended before the agent's `tether ack`")
        else:
            said = recall.get("describe") or "waiting for `tether ack` (restate the pins)"
            _out(f"recall:     {recall['result'] or 'pending'}: {said}")
    ended = supervisor["last_end"]
    if ended:
        _out(f"supervisor: not running; the last one ended {_age(ended['at'])}: {ended['reason']}")
    if supervisor["state"] == "running":
        _out(f"supervisor: running (pid {supervisor['pid']})")
    elif supervisor["state"] == "died":
        _out(f"supervisor: died without a clean exit (pid {supervisor['pid']})")
        if supervisor["agent_running"]:
            pid = supervisor["agent_pid"]
            _out(f"agent:      pid {pid} still runs, left by it (`tether run` offers to end it)")
    for problem in report["problems"]:
        if problem != verdict["message"]:
            _out(f"problem:    {problem}")
    return 0


# -- note, checkpoint, check -----------------------------------------------------------------


def _note(args: argparse.Namespace) -> int:
    tether = TetherDir.require(args.dir)
    text = " ".join(args.text)
    if text == "-":
        text = sys.stdin.read()
    if not text.strip():
        raise TetherError("nothing to note: give the text after the section name")
    title = tether.add_note(args.section, text)
    _out(f"noted in {tether.notes.name} § {title}")
    return 0


def _checkpoint(args: argparse.Namespace) -> int:
    from supervisor.store import checkpoints

    tether = TetherDir.require(args.dir)
    incident: int | str | None = args.incident
    if isinstance(incident, str) and incident.isdigit():
        incident = int(incident)
    checkpoint = checkpoints.take(tether, args.message, incident=incident)
    state = "ok" if checkpoint.invariant.get("ok") else "VIOLATED"
    _out(f"checkpoint #{checkpoint.seq} ({checkpoint.reason}); invariant {state}")
    return 0


def _check(args: argparse.Namespace) -> int:
    from supervisor.store import invariant
    from supervisor.store.artifact_scan import ArtifactScan

    tether = TetherDir.require(args.dir)
    scan = ArtifactScan(tether)  # the whole artifacts file: gaps and bad lines anywhere
    if args.fix:
        outcome = invariant.fix(tether, scan=scan)
        if args.json:
            _print_json(
                {
                    "before": outcome.before.to_dict(),
                    "after": outcome.after.to_dict(),
                    "fixed": outcome.changed,
                    "changes": list(outcome.changes),
                }
            )
        else:
            for warning in outcome.before.warnings:
                _out(f"warning: {warning}")
            if outcome.changed:
                _out(f"was:   {outcome.before.message}")
                for change in outcome.changes:
                    _out(f"changed: {change}")
                _out(f"now:   {outcome.after.message}")
            else:
                _out("changed nothing")
                _out(("ok: " if outcome.after.ok else "VIOLATED: ") + outcome.after.message)
        return 0 if outcome.after.ok else 1
    verdict = invariant.check(tether, scan)
    if args.json:
        _print_json(verdict.to_dict())
    else:
        for warning in verdict.warnings:
            _out(f"warning: {warning}")
        _out(("ok: " if verdict.ok else "VIOLATED: ") + verdict.message)
        if not verdict.ok and verdict.kind in (invariant.CURSOR_AHEAD, invariant.CURSOR_BEHIND):
            _out(f"run `tether check --fix` to set the cursor to {verdict.expected_cursor}")
    return 0 if verdict.ok else 1


# -- history, show, diff, restore ------------------------------------------------------------


def _history(args: argparse.Namespace) -> int:
    """Newest first, in text and JSON alike, as the side pane's Checkpoints tab lists them:
    ``--limit N`` keeps the newest N, and ``rows[0]`` is the latest checkpoint."""
    from supervisor.store import checkpoints

    tether = TetherDir.require(args.dir)
    seqs = checkpoints.list_seqs(tether)
    shown = seqs[-args.limit :] if args.limit > 0 else seqs
    rows = []
    for seq in reversed(shown):
        try:
            checkpoint = checkpoints.load(tether, seq)
        except TetherError as error:
            rows.append({"seq": seq, "error": str(error)})
            continue
        rows.append(
            {
                "seq": seq,
                "at": checkpoint.at,
                "reason": checkpoint.reason,
                "cursor": checkpoint.progress.get("cursor"),
                "phase": checkpoint.progress.get("phase"),
                "invariant_ok": checkpoint.invariant.get("ok"),
                "incident": checkpoint.incident,
            }
        )
    if args.json:
        _print_json(rows)
        return 0
    if not seqs:
        _out("no checkpoints yet (`tether checkpoint -m WHY`)")
        return 0
    for row in rows:
        if "error" in row:
            _out(f"#{row['seq']:<6} {row['error']}")
            continue
        mark = "" if row["invariant_ok"] else "  [invariant violated]"
        number = row["incident"]
        named = number is None or f"#{number}" in str(row["reason"])
        incident = "" if named else f"  (incident #{number})"
        _out(
            f"#{row['seq']:<6} {row['at']}  cursor {row['cursor']}  {row['reason']}{incident}{mark}"
        )
    if len(shown) < len(seqs):
        _out(f"({len(seqs) - len(shown)} older not shown; --limit 0 shows all)")
    return 0


def _show(args: argparse.Namespace) -> int:
    from supervisor.store import checkpoints

    checkpoint = checkpoints.load(TetherDir.require(args.dir), args.seq)
    if args.json:
        _print_json(checkpoint.to_dict())
        return 0
    git = checkpoint.git
    _out(f"checkpoint #{checkpoint.seq} at {checkpoint.at}: {checkpoint.reason}")
    if checkpoint.incident is not None:
        _out(f"incident: {checkpoint.incident}")
    if git:
        dirty = " (dirty)" if git.get("dirty") else ""
        _out(f"git: {git.get('head') or 'no commit yet'}{dirty}")
    _out(f"progress: {json.dumps(checkpoint.progress, ensure_ascii=False)}")
    _out(f"invariant: {checkpoint.invariant.get('message', '?')}")
    _out("\n=== task.md ===")
    _out(checkpoint.task.rstrip("\n"))
    _out("\n=== notes.md ===")
    _out(checkpoint.notes.rstrip("\n"))
    return 0


def _resolve(tether: TetherDir, which: str) -> Any:
    from supervisor.store import checkpoints

    if which == "live":
        return checkpoints.live(tether)
    try:
        return checkpoints.load(tether, int(which.lstrip("#")))
    except ValueError:
        raise TetherError(f"{which!r} is neither a checkpoint number nor `live`") from None


def _diff(args: argparse.Namespace) -> int:
    from supervisor.store import checkpoints

    tether = TetherDir.require(args.dir)
    sys.stdout.write(shown(checkpoints.diff(_resolve(tether, args.a), _resolve(tether, args.b))))
    return 0


def _restore(args: argparse.Namespace) -> int:
    from supervisor.store import checkpoints, invariant

    tether = TetherDir.require(args.dir)
    safety, restored = checkpoints.restore(tether, args.seq)
    _out(f"restored checkpoint #{restored.seq} ({restored.reason}) into the live files")
    _out(f"the state before it is checkpoint #{safety.seq}; undo: tether restore {safety.seq}")
    verdict = invariant.check(tether)
    _out(("invariant ok: " if verdict.ok else "invariant VIOLATED: ") + verdict.message)
    return 0


_HANDLERS = {
    "init": _init,
    "status": _status,
    "note": _note,
    "checkpoint": _checkpoint,
    "check": _check,
    "history": _history,
    "show": _show,
    "diff": _diff,
    "restore": _restore,
}
