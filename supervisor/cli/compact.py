"""`tether compact`: ask the running tether to compact its agent now, at a natural break.

The request is an event in events.jsonl, which the supervisor follows; it types
the profile's compaction command with the pinned decisions as instructions
(Claude Code: ``/compact <instructions>``) once the agent waits for input.
Without a running tether there is nobody to type it, and the command says so.
"""

from __future__ import annotations

import argparse

from supervisor.cli import add_dir_option
from supervisor.errors import TetherError
from supervisor.store.tether_dir import TetherDir


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    add_dir_option(parser)


def run(args: argparse.Namespace) -> int:
    from supervisor.store import lock

    tether = TetherDir.require(args.dir)
    state, _info = lock.inspect(tether)
    if state != "held":
        raise TetherError(
            f"no tether is running in {tether.work_dir}; start the agent with `tether run`",
            exit_code=1,
        )
    tether.record_event("compact_request", "cli")
    print("tether compact: asked; the agent is compacted when it next waits for input")
    return 0
