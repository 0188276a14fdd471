"""`tether transcript [SESSION]`: a recorded session as plain text, on stdout.

Renders the `.cast` through the emulator (see :mod:`supervisor.terminal.transcript`),
so it holds what the `.txt` cannot: each screen before it was cleared, and the
last screen even when tether was killed. The recovery payload points here for
the whole conversation.
"""

from __future__ import annotations

import argparse
import os
import sys

from supervisor.cli import add_dir_option
from supervisor.errors import TetherError
from supervisor.shown import shown_line
from supervisor.store import fsio
from supervisor.store.tether_dir import TetherDir


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    parser.add_argument(
        "session",
        nargs="?",
        help="a recording in .tether/sessions/ (its name or part of it; default: the newest)",
    )
    parser.add_argument("--list", action="store_true", help="list the recordings, oldest first")
    add_dir_option(parser)


def run(args: argparse.Namespace) -> int:
    # avt, whatever the supervisor draws with: it reads a row of text cheaply, and a
    # transcript reads the screen at every clear (libghostty-vt reads it all each time).
    from supervisor.store import lock
    from supervisor.terminal.avt_emulator import AvtEmulator
    from supervisor.terminal.transcript import find_session, render, sessions

    tether = TetherDir.require(args.dir)
    if args.list:
        found = sessions(tether.sessions)
        if not found:
            print(
                shown_line(f"no recordings in {tether.sessions}; `tether run` records each session")
            )
        for path in found:
            print(shown_line(path.stem))
        return 0
    try:  # the recording a running tether writes, from its held lock (a clone holds none)
        state, holder = lock.inspect(tether)
    except (OSError, TetherError):
        state, holder = "free", None
    current = holder.recording if state == "held" and holder is not None else None
    path = find_session(tether.sessions, args.session, current)
    try:  # a recording is tether's own file: never through a link, never a pipe
        handle = os.fdopen(fsio.open_regular(path, os.O_RDONLY), "rb")
    except OSError as error:
        raise TetherError(f"cannot read {path}: {error.strerror}") from None
    out = sys.stdout
    with handle:
        for line in render(handle, str(path), lambda cols, rows: AvtEmulator(cols, rows)):
            out.write(shown_line(line) + "\n")
    out.flush()
    return 0
