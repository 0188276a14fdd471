"""`tether hook EVENT [--dir DIR]`, wired into the agent's hooks by claude_settings."""

from __future__ import annotations

import argparse
import sys

from supervisor.cli import add_dir_option


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    parser.add_argument("event", help="the hook event name, e.g. SessionStart or PreCompact")
    add_dir_option(parser)


def run(args: argparse.Namespace) -> int:
    try:
        from supervisor.agents.hook_command import handle

        return handle(args.event, args.dir, sys.stdin.buffer, sys.stdout)
    except Exception as problem:  # the agent's hook must never see a traceback
        print(f"tether hook: {problem}", file=sys.stderr)
        return 0
