"""`tether ledger [--json] [--since T] [--verifications] [--last N]`: what the agent did.

For the agent itself (after a fold it can ask its record instead of trusting its
memory) and for scripts: actions with exit codes, the files touched, and each
verification's latest result with whether it is current (ran on the checkout now).
Text from the ledger came from hook input: its control characters are shown visibly
(``^[`` for ESC, :mod:`supervisor.shown`), and ``--json`` escapes everything outside ASCII.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from datetime import UTC, datetime
from typing import Any

from supervisor.cli import add_dir_option
from supervisor.errors import TetherError
from supervisor.rehydrate.evidence_section import is_current
from supervisor.shown import shown_line
from supervisor.store.checkout import Checkout, current_checkout
from supervisor.store.ledger import Ledger
from supervisor.store.tether_dir import TetherDir

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    parser.add_argument("--json", action="store_true", help="one JSON object, for scripts")
    parser.add_argument(
        "--since",
        metavar="T",
        help="only actions since T: a UTC time (2026-12-01T21:00:00Z) or an age (90s, 10m, 2h, 1d)",
    )
    parser.add_argument(
        "--verifications", action="store_true", help="only the verifications and their currency"
    )
    parser.add_argument(
        "--last", type=int, default=50, metavar="N", help="at most N actions (default 50)"
    )
    add_dir_option(parser)


def parse_since(text: str, now: float | None = None) -> float:
    """``text`` as seconds since the epoch: an age like ``10m`` or an ISO-8601 time."""
    now = time.time() if now is None else now
    age = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smhd])\s*", text)
    if age:
        return now - float(age.group(1)) * _UNITS[age.group(2)]
    try:
        when = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise TetherError(
            f"--since {text!r}: give a UTC time (2026-12-01T21:00:00Z) or an age (10m, 2h, 1d)"
        ) from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.timestamp()


def _shown(value: Any, limit: int = 200) -> str:
    text = shown_line(" ".join(str(value).split()))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _clock(at: Any) -> str:
    """A ledger time as people read it in a list: HH:MM:SS (UTC)."""
    text = _shown(at, 40)
    return text[11:19] if len(text) >= 19 and text[10:11] == "T" else text


def _verification(record: dict[str, Any], now: Checkout) -> dict[str, Any]:
    raw = record.get("verify")
    verify: dict[str, Any] = raw if isinstance(raw, dict) else {}
    return {
        "command": record.get("command"),
        "kind": verify.get("kind"),
        "ok": record.get("ok") is True,
        "exit": record.get("exit"),
        "result": verify.get("result"),
        "at": record.get("at"),
        "checkout": record.get("checkout"),
        "current": is_current(record, now),
    }


def run(args: argparse.Namespace) -> int:
    tether = TetherDir.require(args.dir)
    since = parse_since(args.since) if args.since else None
    view = Ledger(tether.root).view(since=since, keep=max(args.last, 0))
    now = current_checkout(tether.work_dir)
    verifications = [_verification(r, now) for r in view.verifications.values()]
    for problem in view.problems:
        print(f"tether ledger: {_shown(problem, 300)}", file=sys.stderr)
    if args.json:
        out: dict[str, Any] = {"checkout": now.to_json(), "verifications": verifications}
        if not args.verifications:
            out["actions"] = view.recent
            out["files"] = [{"path": p, "at": at} for p, at in view.files.items()]
        print(json.dumps(out, ensure_ascii=True, indent=1))
        return 0
    if view.empty:
        print(
            "The ledger is empty: no action reported yet (only agents with tool hooks, "
            "Claude Code and Codex, write one)."
        )
        return 0
    print(f"Checkout now: {now.short()}")
    print("Verifications (latest of each command):" if verifications else "No verification yet.")
    for item in verifications:
        verdict = "PASSED" if item["ok"] else "FAILED"
        currency = "current" if item["current"] else "NOT current"
        result = f'  "{_shown(item["result"], 80)}"' if item["result"] else ""
        print(
            f"  {verdict:<6} {item['kind']:<5} `{_shown(item['command'], 80)}`  "
            f"exit {item['exit']}{result}  {_clock(item['at'])}  {currency}"
        )
    if args.verifications:
        return 0
    print("Actions (oldest first, UTC):")
    for record in view.recent:
        what = record.get("command") or ", ".join(str(p) for p in record.get("paths") or [])
        ending = f"exit {record['exit']}" if record.get("exit") is not None else ""
        if record.get("error") and record.get("exit") is None:
            ending = "error"
        print(
            f"  {_clock(record.get('at'))}  {_shown(record.get('tool'), 12):<6} "
            f"{ending:<7} {_shown(what, 120)}"
        )
    if view.files:
        print("Files touched (newest first):")
        for path, at in list(view.files.items())[:50]:
            print(f"  {_clock(at)}  {_shown(path, 160)}")
    return 0
