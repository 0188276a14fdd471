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
    from typing import BinaryIO, TextIO

    from supervisor.agents.hook_stdin import StdinRead


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    from supervisor.cli import add_dir_option

    parser.add_argument("event", help="the hook event name, e.g. SessionStart or PreCompact")
    add_dir_option(parser)


def run(args: argparse.Namespace) -> int:
    from supervisor.agents.hook_stdin import read_stdin

    return _handle(args.event, args.dir, read_stdin(_stdin()))


def _stdin() -> BinaryIO | None:
    """The hook's stdin, None when it was closed (Python then has no sys.stdin)."""
    return sys.stdin.buffer if sys.stdin is not None else None


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
    from supervisor.agents.hook_stdin import read_stdin

    read = read_stdin(_stdin())
    if read.why is None and len(read.data) <= hook_client.STDIN_LIMIT:
        try:
            answer = hook_client.ask(event, work_dir, read.data)
        except OSError as problem:  # sent, so maybe recorded: never handle it twice
            from supervisor.shown import shown  # only here: the fast path imports no `re`

            _write(
                sys.stderr,
                f"tether hook: the supervisor did not answer: {shown(str(problem))}\n".encode(),
            )
            return 0
        if answer is not None:
            _write(sys.stdout, answer.stdout)
            _write(sys.stderr, answer.stderr)
            return answer.code
    return _handle(event, work_dir, read)


def _write(stream: TextIO | None, data: bytes) -> None:
    """Bytes to stdout or stderr, which the agent may have closed (then nowhere)."""
    if stream is None or not data:
        return
    try:
        stream.buffer.write(data)
        stream.buffer.flush()
    except (OSError, ValueError):
        pass


def _handle(event: str, work_dir: str, stdin: StdinRead) -> int:
    try:
        from supervisor.agents.hook_command import handle

        out = sys.stdout if sys.stdout is not None else io.StringIO()
        err = sys.stderr if sys.stderr is not None else io.StringIO()
        return handle(event, work_dir, stdin, out, err)
    except Exception as problem:  # the agent's hook must never see a traceback
        from supervisor.shown import shown

        _write(
            sys.stderr, f"tether hook: {shown(str(problem))}\n".encode("utf-8", "backslashreplace")
        )
        return 0
