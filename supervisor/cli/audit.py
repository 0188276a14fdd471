"""`tether audit`: the judge on any text, for users who check a summary against their
pins and for scripts.

    tether audit --pins FILE --summary FILE [--json]       the loss audit of a summary
    tether audit --pins FILE --restatement FILE [--json]   the recall check of a restatement
    tether audit --folded FILE --summary FILE [--pins FILE] [--json]
                                                           dropped, not pinned

PINS: one decision a line (a leading "DECISION:" or list marker is dropped). FOLDED: a
JSON list of the folded window's messages (``{"role", "content"}`` objects, or strings).
Exit 0 when everything was kept, 1 when something was dropped or changed.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

from supervisor.errors import TetherError
from supervisor.shown import json_shown, shown

FILE_LIMIT = 4 * 1024 * 1024
_PIN_PREFIX = re.compile(r"^\s*(?:[-*]\s+|\d+[.)]\s+)?(?:DECISION:\s*)?", re.IGNORECASE)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    parser.add_argument("--pins", metavar="FILE", help="the pinned decisions, one a line")
    text = parser.add_mutually_exclusive_group()
    text.add_argument("--summary", metavar="FILE", help="a compaction summary")
    text.add_argument("--restatement", metavar="FILE", help="the agent's restatement")
    parser.add_argument(
        "--folded", metavar="FILE", help="the folded window: a JSON list of its messages"
    )
    parser.add_argument("--json", action="store_true", help="print JSON")


def _read(path: str) -> str:
    file = Path(path)
    try:
        with file.open("rb") as handle:
            data = handle.read(FILE_LIMIT + 1)
    except OSError as error:
        raise TetherError(f"{path}: cannot read it ({error.strerror or error})") from None
    if len(data) > FILE_LIMIT:
        raise TetherError(f"{path}: over {FILE_LIMIT // (1024 * 1024)} MiB; give a smaller file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise TetherError(f"{path}, line {line}: not UTF-8 text") from None


def read_pins(path: str) -> list[str]:
    pins = []
    for line in _read(path).splitlines():
        pin = _PIN_PREFIX.sub("", line).strip()
        if pin:
            pins.append(pin)
    if not pins:
        raise TetherError(f"{path}: no pinned decision in it (one decision a line)")
    return pins


def read_folded(path: str) -> list[str]:
    text = _read(path)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise TetherError(f"{path}, line {error.lineno}: not JSON ({error.msg})") from None
    if not isinstance(data, list):
        raise TetherError(f"{path}: expected a JSON list of messages")
    messages = []
    for index, item in enumerate(data):
        content = item.get("content") if isinstance(item, dict) else item
        message = _content_text(content)
        if message is None:
            raise TetherError(
                f"{path}: message {index + 1} has no text "
                '(give {"role": ..., "content": "..."} objects or strings)'
            )
        messages.append(message)
    return messages


def _content_text(content: Any) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content blocks: [{"type": "text", "text": ...}]
        parts = [b.get("text") for b in content if isinstance(b, dict)]
        return "\n".join(p for p in parts if isinstance(p, str))
    return None


def _shown(text: str) -> str:
    """Text from a file, never with its control characters on the terminal."""
    return shown(text)


def run(args: argparse.Namespace) -> int:
    if args.folded:
        if not args.summary:
            raise TetherError("--folded needs --summary FILE (the summary that replaced it)")
        return _dropped(args)
    if not args.pins or not (args.summary or args.restatement):
        raise TetherError(
            "give --pins FILE with --summary FILE or --restatement FILE "
            "(or --folded FILE --summary FILE)"
        )
    pins = read_pins(args.pins)
    if args.summary:
        from supervisor.recognize.judge.verdict import judge_all

        verdicts = list(enumerate(judge_all(pins, _read(args.summary)), start=1))
    else:
        from supervisor.recognize.judge.restatement import judge_restatement

        verdicts = sorted(judge_restatement(pins, _read(args.restatement)).items())
    rows = [verdict.to_dict(number) for number, verdict in verdicts]
    if args.json:
        print(json_shown(json.dumps({"decisions": rows}, ensure_ascii=False, indent=2)))
    else:
        for row in rows:
            print(_shown(_line(row)))
    return 0 if all(row["status"] == "kept" for row in rows) else 1


def _line(row: dict[str, Any]) -> str:
    head = f"{row['number']}. {row['status']}"
    details = [f"changed: {c['pinned']} → {c['now']}" for c in row["changed"]]
    if row["missing"]:
        details.append("missing: " + ", ".join(row["missing"]))
    tail = f" ({'; '.join(details)})" if details else ""
    return f"{head}{tail}: {row['decision']}"


def _dropped(args: argparse.Namespace) -> int:
    from supervisor.recognize.judge.dropped import dropped_not_pinned

    folded = read_folded(args.folded)
    pins = read_pins(args.pins) if args.pins else []
    dropped = dropped_not_pinned(folded, _read(args.summary), pins, limit=10_000)
    if args.json:
        rows = [{"term": d.term, "said": d.said} for d in dropped]
        print(json_shown(json.dumps({"dropped": rows}, ensure_ascii=False, indent=2)))
    elif not dropped:
        print("nothing dropped that nobody pinned")
    else:
        for item in dropped:
            print(_shown(f"dropped: {item.term}  (said: {item.said})"))
    return 1 if dropped else 0
