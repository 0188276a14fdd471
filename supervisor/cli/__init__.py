"""The `tether` command line.

Only the module of the chosen subcommand is imported, so that `tether hook`
and `tether note`, which agents call in their loops, start without Textual.
Each subcommand module offers ``add_arguments(parser)`` and ``run(args) -> int``.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from supervisor.errors import TetherError

# name -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "run": ("supervisor.cli.run", "run an agent under supervision: tether run [PROFILE] [-- ARGS]"),
    "demo": ("supervisor.cli.demo", "the whole flow on the built-in demo agent"),
    "init": ("supervisor.cli.store", "create .tether/ with templates"),
    "status": ("supervisor.cli.store", "phase, cursor, invariant, last checkpoint, incidents"),
    "note": ("supervisor.cli.store", "append a line to a notes section"),
    "checkpoint": ("supervisor.cli.store", "snapshot the state now"),
    "check": ("supervisor.cli.store", "check the cursor invariant (--fix rolls to disk truth)"),
    "history": ("supervisor.cli.store", "list checkpoints"),
    "show": ("supervisor.cli.store", "show one checkpoint"),
    "diff": ("supervisor.cli.store", "section-by-section diff of two checkpoints"),
    "restore": ("supervisor.cli.store", "restore a checkpoint into the live files"),
    "payload": ("supervisor.cli.payload", "print the rehydrate payload as it would be sent"),
    "ack": ("supervisor.cli.ack", "after a recovery: the agent's restatement of the pins, checked"),
    "compact": ("supervisor.cli.compact", "compact the running agent now, keeping the pins"),
    "hook": ("supervisor.cli.hook", "called by agent hooks: records the event, may answer"),
    "profiles": ("supervisor.cli.profiles", "list agent profiles and where each was loaded from"),
    "demo-agent": ("supervisor.agents.demo_agent", "the scripted demo agent itself"),
}


def _top_parser() -> argparse.ArgumentParser:
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


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        _top_parser().print_help()
        return 0
    name, rest = argv[0], argv[1:]
    if name not in COMMANDS:
        print(f"tether: unknown command {name!r}; see `tether --help`", file=sys.stderr)
        return 2
    module_name, help_ = COMMANDS[name]
    module = importlib.import_module(module_name)
    parser = argparse.ArgumentParser(prog=f"tether {name}", description=help_)
    module.add_arguments(parser, name)
    args = parser.parse_args(rest)
    args.command = name
    try:
        return int(module.run(args) or 0)
    except TetherError as error:
        print(f"tether {name}: {error}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
