"""`tether ack [TEXT]`: the agent's restatement after a recovery, checked against the pins.

The recovery payload asks the agent to restate each pinned decision under its
number, values copied exactly, and send them here (as arguments, or on stdin when
there are none or the only one is ``-``). tether records the restatement and its recall check
(:mod:`supervisor.rehydrate.recall_check`) and says the result, so the agent
hears at once what it did not take back.
"""

from __future__ import annotations

import argparse
import sys

from supervisor.cli import add_dir_option
from supervisor.errors import TetherError
from supervisor.shown import shown
from supervisor.store.tether_dir import TetherDir

STDIN_LIMIT = 256 * 1024


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    parser.add_argument(
        "text", nargs="*", help="the restatement (none, or '-': read it from stdin)"
    )
    add_dir_option(parser)


def _restatement(args: argparse.Namespace) -> str:
    if args.text and args.text != ["-"]:
        return " ".join(args.text)
    if sys.stdin is None or sys.stdin.isatty():
        raise TetherError('give the restatement: tether ack "..." (or pipe it on stdin)')
    data = sys.stdin.buffer.read(STDIN_LIMIT + 1)
    if len(data) > STDIN_LIMIT:
        raise TetherError(f"the restatement on stdin is over {STDIN_LIMIT} bytes; shorten it")
    return data.decode("utf-8", "replace")


def run(args: argparse.Namespace) -> int:
    from supervisor.rehydrate.recall_check import COMPLETE, acknowledge

    text = _restatement(args).strip()
    if not text:
        raise TetherError("the restatement is empty; restate the pinned decisions")
    tether = TetherDir.require(args.dir)
    check, new = acknowledge(tether, text)
    label = f"incident #{check.incident}" if check.incident is not None else "the recovery"
    if not new:
        print(
            shown(
                f"tether ack: recorded; {label} was already checked ({check.result}): "
                f"{check.describe()}"
            )
        )
        return 0
    print(shown(f"tether ack: recall check for {label}: {check.result}: {check.describe()}"))
    for number, terms in check.missing:
        pairs = check.changes_of(number)
        if pairs:
            said = "; ".join(f"{pinned} → {now}" for pinned, now in pairs)
            print(shown(f"  decision {number}: changed: {said} (the pin holds as written)"))
        gone = [t for t in terms if not any(t == p for p, _n in pairs)]
        if gone or not pairs:
            print(shown(f"  decision {number}: not restated: {', '.join(gone) or 'all of it'}"))
    return 0 if check.result == COMPLETE else 1
