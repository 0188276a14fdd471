"""`tether run [PROFILE] [-- ARGS]` and `tether run -- CMD ARGS`.

Everything before `--` names a profile (default: the generic shell profile);
everything after is either extra arguments for the profile's agent or, with
no profile named, the command itself.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys
from pathlib import Path

from supervisor import environment
from supervisor.errors import TetherError
from supervisor.shown import shown


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    from supervisor.cli import add_dir_option

    add_dir_option(parser)
    parser.add_argument(
        "--trust",
        action="store_true",
        help="trust a .tether/ committed to git here (its notes are pasted into the agent)",
    )
    parser.add_argument(
        "words",
        nargs=argparse.REMAINDER,
        metavar="[PROFILE] [-- ARGS] | -- CMD ARGS",
        help="a profile (claude, codex, demo, ...) and extra arguments, or a command after --",
    )


def split_command(words: list[str]) -> tuple[str | None, list[str]]:
    """(profile name or None, the words after `--`).

    `PROFILE -- ARGS` gives the profile and extra arguments for its agent;
    `-- CMD ARGS` gives no profile and the command itself.
    """
    if not words:
        return None, []
    if words[0] == "--":
        return None, words[1:]
    profile, rest = words[0], words[1:]
    if rest and rest[0] == "--":
        rest = rest[1:]
    return profile, rest


def build_config(profile_name: str | None, words: list[str], workdir: Path):
    from supervisor.config.keymap import load_keymap
    from supervisor.config.notify import load_notify_settings
    from supervisor.run.run_config import RunConfig, agent_argv
    from supervisor.store.tether_dir import TetherDir, init
    from supervisor.terminal.keys import refuse_unsendable
    from supervisor.terminal.pty_host import resolve_command

    if not workdir.is_dir():
        raise TetherError(f"no such folder: {workdir}")
    if profile_name is None and not words:
        raise TetherError(
            "nothing to run: name a profile (`tether run claude`) or a command "
            "after `--` (`tether run -- bash`)"
        )
    from supervisor.config.profiles import load_profile

    profile = load_profile(profile_name or "shell")
    if profile_name is None:
        argv = list(words)
    else:
        if not profile.command and not words:
            words = [os.environ.get("SHELL") or "sh"]
        resolve_command(profile.argv(words))  # before .tether/ is touched
        tether = TetherDir.at(workdir)
        if not tether.exists():
            init(workdir)
        argv = agent_argv(profile, words, tether, resume=False)
    resolve_command(argv)  # fail before the UI starts if the program is missing
    keymap = load_keymap()
    refuse_unsendable(keymap)
    return RunConfig(
        argv=argv,
        workdir=workdir,
        profile_name=profile.name,
        title=f"tether · {profile.name}",
        keymap=keymap,
        notify=load_notify_settings(),
        extra_args=list(words) if profile_name is not None else [],
    )


def ask_trust(workdir: Path, *, trusted: bool, asked=None) -> None:
    """Before the first injection: a `.tether/` committed to git is trusted only if asked.

    ``--trust`` says so up front; on a terminal tether asks; otherwise it refuses.
    ``asked``: git's answer started earlier (:class:`trust.TrackedFiles`).
    """
    from supervisor.store import trust
    from supervisor.store.tether_dir import TetherDir

    tether = TetherDir.at(workdir)
    warning = trust.warning(tether, asked)
    if warning is None:
        return
    if not trusted:
        if not sys.stdin.isatty():
            raise TetherError(
                f"{warning}; then run `tether run --trust ...` to trust it, or move it away"
            )
        print(f"tether: {shown(warning)}.", file=sys.stderr)
        try:
            answer = input(
                "Trust them and paste them into the agent when it loses context? "
                "[y/N; N does not start the agent] "
            )
        except EOFError:
            answer = ""
        if answer.strip().lower() not in ("y", "yes"):
            raise TetherError(
                "not started (you answered no): read .tether/ first, or move it away and run "
                "again for a fresh one; `tether run --trust` starts with it",
                exit_code=1,
            )
    trust.trust(tether)


def run(args: argparse.Namespace) -> int:
    # No garbage collection until the app has started and frozen what start-up built
    # (TetherApp._settle_heap enables it again): the imports of the engine and Textual
    # allocate millions of objects, almost none of them garbage, and each collection
    # walked them all, on the way to the agent's first frame and the UI's.
    gc.disable()
    from supervisor.run.hangup import Ended, Hangups

    hangups = Hangups()
    hangups.install()  # a closed terminal or a `kill` ends tether as a quit does
    try:
        code = _run(args, hangups)
    except Ended as ended:
        code = 128 + ended.signum
    finally:
        gc.enable()
    if hangups.reason is not None:
        _end_now(code)  # all is cleaned up; Textual's threads may still spin on a lost terminal
    return code


def _end_now(code: int) -> None:
    """End the process without waiting for threads that a lost terminal can keep busy."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


def _run(args: argparse.Namespace, hangups) -> int:
    profile, words = split_command(args.words)
    workdir = Path(args.dir).resolve()
    if (workdir / ".tether").is_dir():  # nothing to trust in a folder without one
        asked = _ask_git(workdir)  # git runs while the spawn's modules load
        trusted = getattr(args, "trust", False)
        ask_trust(workdir, trusted=trusted, asked=asked)  # before anything runs
    ahead = _spawn_ahead(profile, words, workdir)  # the agent starts before the engine
    outer = _probe_terminal()  # before anything else draws on it or reads its keys
    if ahead is not None:  # fed nothing yet: its bytes wait in the PTY
        ahead.session.emulator.follow(outer)
    painter = _early_painter(ahead.session) if ahead is not None else None
    early = None
    try:
        if ahead is not None:
            ahead.complete()  # what the agent's start did not wait for
        config = build_config(profile, words, workdir)
        if not sys.stdout.isatty():
            raise TetherError("tether run needs a terminal (stdout is not a tty)")
        os.chdir(config.workdir)
        from supervisor.run.launch import start_early

        early = start_early(config, ahead)  # the agent starts while the UI loads
        if early is not None:  # fed nothing yet: the painter holds what it read
            early.session.emulator.follow(outer)
        ahead = None  # the supervision has it now
        if painter is None and early is not None:
            painter = _early_painter(early.session)  # and shows while the UI loads
        from supervisor.app import run_app

        if painter is not None and early is not None:
            early.session.hand_back(painter.finish())
            painter = None  # the app's driver takes the alternate screen over
        return run_app(config, early, hangups)
    finally:
        if painter is not None:  # the UI never came up: give the terminal back
            painter.finish()
            try:
                painter.release()
            except OSError:  # it hung up: nothing to give back, the agent still to end
                pass
        if ahead is not None:
            ahead.abandon(hangups.reason)
        if early is not None:
            early.supervision.end_reason = early.supervision.end_reason or hangups.reason
            early.abandon()  # already done by the app unless it never took over


def _ask_git(workdir: Path):
    """Start asking git which `.tether/` files it tracks, and meanwhile import what the
    agent's spawn needs (their imports only: nothing runs or is written)."""
    from supervisor.store import trust
    from supervisor.store.tether_dir import TetherDir

    asked = trust.TrackedFiles(TetherDir.at(workdir))
    for module in ("run.early_spawn", "store.lock", "terminal.pty_host"):
        importlib.import_module(f"supervisor.{module}")
    return asked


def _spawn_ahead(profile: str | None, words: list[str], workdir: Path):
    """`tether run` in a terminal: the agent spawned now (see supervisor/run/early_spawn.py)."""
    if not sys.stdout.isatty() or environment.current().early_start_off:
        return None
    import shutil

    from supervisor.config.layout import view_size
    from supervisor.run.early_spawn import spawn_ahead

    size = view_size(*shutil.get_terminal_size(), side_pane=True)  # as launch.agent_size
    return spawn_ahead(profile, words, workdir, size)


def _probe_terminal():
    """How the user's terminal draws emoji and which colours it has (outer_terminal.py)."""
    from supervisor.terminal.outer_terminal import OuterTerminal, probe

    if environment.current().probe_terminal == "0":
        return OuterTerminal()
    return probe()


def _early_painter(session):
    """The agent's first screens, painted where its view will be, until the UI is up."""
    if environment.current().early_start_off:
        return None
    from supervisor.terminal.early_painter import EarlyPainter

    return EarlyPainter(session).start()
