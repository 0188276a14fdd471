"""The `tether` command line.

Only the module of the chosen subcommand is imported, so that `tether hook`
and `tether note`, which agents call in their loops, start without Textual.
Each subcommand module offers ``add_arguments(parser)`` and ``run(args) -> int``.
"""

from __future__ import annotations

import sys

from supervisor.errors import TetherError  # no imports of its own

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~8 ms of `tether hook`)
if TYPE_CHECKING:
    import argparse

# name -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "run": ("supervisor.cli.run", "run an agent under supervision: tether run [PROFILE] [-- ARGS]"),
    "demo": ("supervisor.cli.demo", "the whole flow on the built-in demo agent"),
    "init": ("supervisor.cli.store", "create .tether/ with templates"),
    "status": ("supervisor.cli.store", "phase, cursor, invariant, last checkpoint, incidents"),
    "note": ("supervisor.cli.store", "append a line to a notes section"),
    "checkpoint": ("supervisor.cli.store", "snapshot the state now"),
    "check": ("supervisor.cli.store", "check the cursor invariant (--fix rolls to disk truth)"),
    "history": ("supervisor.cli.store", "list checkpoints, newest first"),
    "show": ("supervisor.cli.store", "show one checkpoint"),
    "diff": ("supervisor.cli.store", "section-by-section diff of two checkpoints"),
    "restore": ("supervisor.cli.store", "restore a checkpoint into the live files"),
    "payload": ("supervisor.cli.payload", "print the rehydrate payload as it would be sent"),
    "ack": ("supervisor.cli.ack", "after a recovery: the agent's restatement of the pins, checked"),
    "audit": (
        "supervisor.cli.audit",
        "the judge: which pinned specifics a summary or restatement kept, dropped or changed",
    ),
    "compact": ("supervisor.cli.compact", "compact the running agent now, keeping the pins"),
    "transcript": (
        "supervisor.cli.transcript",
        "a recorded session as plain text (each screen before it was cleared, the last one)",
    ),
    "ledger": (
        "supervisor.cli.ledger",
        "what the agent did: actions, exit codes, verifications and whether they are current",
    ),
    "hook": ("supervisor.cli.hook", "called by agent hooks: records the event, may answer"),
    "profiles": ("supervisor.cli.profiles", "list agent profiles and where each was loaded from"),
    "demo-agent": ("supervisor.agents.demo_agent", "the scripted demo agent itself"),
}


def _top_parser() -> argparse.ArgumentParser:
    import argparse

    parser = argparse.ArgumentParser(
        prog="tether",
        description="Supervise an interactive coding agent so it never silently loses its place.",
        epilog="commands:\n"
        + "\n".join(f"  {name:<11} {help_}" for name, (_, help_) in COMMANDS.items()),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("command", nargs="?", help="one of the commands below")
    return parser


def add_dir_option(parser: argparse.ArgumentParser) -> None:
    """The folder whose `.tether/` a command acts on (default: the current one)."""
    parser.add_argument(
        "--dir", default=".", metavar="DIR", help="work folder holding .tether/ (default: .)"
    )


def _undecodable(text: str) -> int | None:
    """The byte of ``text`` that was not UTF-8 (Python keeps it as a lone surrogate), if any."""
    for char in text:
        if "\udc80" <= char <= "\udcff":
            return ord(char) - 0xDC00
    return None


def refuse_undecodable(args: argparse.Namespace) -> None:
    """Refuse text arguments that are not UTF-8, before anything is written.

    tether writes text as UTF-8 (notes, JSON), so a goal or a note holding a stray
    byte (``$'a\x9bb'``) could only be mangled or half-written. Paths (``--dir``) are
    exempt, as the file system takes any bytes; so is the command after ``--`` in
    `tether run`, which goes to the agent unread.
    """
    for key, value in vars(args).items():
        if key == "dir":
            continue
        values = value if isinstance(value, list) else [value]
        if key == "words" and "--" in values:
            values = values[: values.index("--")]
        for item in values:
            if not isinstance(item, str):
                continue
            byte = _undecodable(item)
            if byte is not None:
                shown = item.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
                raise TetherError(
                    f"the argument {shown!r} is not UTF-8 text (byte 0x{byte:02x}); "
                    "tether keeps notes and events as UTF-8: give it as UTF-8"
                )


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["hook"]:  # on the agent's critical path: before argparse is imported
        from supervisor.cli.hook import fast_main

        code = fast_main(argv[1:])
        if code is not None:
            return code
    import argparse
    import importlib

    if not argv or argv[0] in ("-h", "--help"):
        _top_parser().print_help()
        return 0
    name, rest = argv[0], argv[1:]
    if name not in COMMANDS:
        import difflib

        close = difflib.get_close_matches(name, list(COMMANDS), n=1)
        hint = f"; did you mean `tether {close[0]}`?" if close else ""
        print(f"tether: unknown command {name!r}{hint} (see `tether --help`)", file=sys.stderr)
        return 2
    module_name, help_ = COMMANDS[name]
    module = importlib.import_module(module_name)
    parser = argparse.ArgumentParser(prog=f"tether {name}", description=help_)
    module.add_arguments(parser, name)
    args = parser.parse_args(rest)
    args.command = name
    if sys.stdout is not None and sys.stdout.errors == "strict":  # a non-UTF-8 name: its bytes
        try:
            sys.stdout.reconfigure(errors="surrogateescape")
        except (AttributeError, ValueError):  # a replaced stream (tests, pipes in wrappers)
            pass
    try:
        if name != "hook":  # a hook never fails the agent: it cleans its event name itself
            refuse_undecodable(args)
        code = int(module.run(args) or 0)
        if sys.stdout is not None:  # None: the agent closed it (a hook's output goes nowhere)
            sys.stdout.flush()  # here, not at exit: a closed pipe is answered below
        return code
    except TetherError as error:
        from supervisor.shown import shown  # a message may quote a file's words

        print(f"tether {name}: {shown(str(error))}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `tether transcript | head`: the reader has what it wanted
        _quiet_stdout()
        return 0


def _quiet_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's last flush does not fail again."""
    import os

    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    sys.exit(main())
