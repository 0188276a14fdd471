"""`tether hook EVENT [--dir DIR]`, wired into the agent's hooks by claude_settings.

Claude Code waits for every hook, so :func:`fast_main` runs before argparse is
even imported: when the agent's supervisor listens (``TETHER_HOOK_SOCKET``), the
call is handed to it (:mod:`supervisor.agents.hook_client`); otherwise, or when
it declines, the hook is handled here.
"""

from __future__ import annotations

import io
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~8 ms)
if TYPE_CHECKING:
    import argparse
    from typing import BinaryIO


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    from supervisor.cli import add_dir_option

    parser.add_argument("event", help="the hook event name, e.g. SessionStart or PreCompact")
    add_dir_option(parser)


def run(args: argparse.Namespace) -> int:
    return _handle(args.event, args.dir, sys.stdin.buffer)


def fast_main(words: list[str]) -> int | None:
    """Run ``tether hook WORDS`` when they have the usual shape (``EVENT [--dir DIR]``);
    None leaves anything else to argparse (help, errors), before stdin is touched."""
    import os

    from supervisor.agents import hook_client

    if not os.environ.get(hook_client.SOCKET_ENV):
        return None
    if len(words) == 1:
        event, work_dir = words[0], "."
    elif len(words) == 3 and words[1] == "--dir":
        event, work_dir = words[0], words[2]
    else:
        return None
    if event.startswith("-") or work_dir.startswith("-"):
        return None
    try:
        data = hook_client.read_stdin(sys.stdin.buffer)
    except (OSError, ValueError):
        data = None
    if data is None:  # a terminal (or unreadable): the handler says so in the event
        return _handle(event, work_dir, sys.stdin.buffer)
    if len(data) <= hook_client.STDIN_LIMIT:
        try:
            answer = hook_client.ask(event, work_dir, data)
        except OSError as problem:  # sent, so maybe recorded: never handle it twice
            from supervisor.shown import shown  # only here: the fast path imports no `re`

            print(
                f"tether hook: the supervisor did not answer: {shown(str(problem))}",
                file=sys.stderr,
            )
            return 0
        if answer is not None:
            sys.stdout.buffer.write(answer.stdout)
            sys.stdout.buffer.flush()
            sys.stderr.buffer.write(answer.stderr)
            sys.stderr.buffer.flush()
            return answer.code
    stdin = io.BufferedReader(hook_client.Replay(data, sys.stdin.buffer))
    return _handle(event, work_dir, stdin)


def _handle(event: str, work_dir: str, stdin: BinaryIO) -> int:
    try:
        from supervisor.agents.hook_command import handle

        return handle(event, work_dir, stdin, sys.stdout)
    except Exception as problem:  # the agent's hook must never see a traceback
        from supervisor.shown import shown

        print(f"tether hook: {shown(str(problem))}", file=sys.stderr)
        return 0
