"""`tether demo`: the whole flow on the built-in demo agent, in a demo folder of its own."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    parser.add_argument(
        "--dir",
        default=None,
        metavar="DIR",
        help="work folder for the demo (default: a folder in tether's data directory)",
    )


def demo_folder() -> Path:
    import platformdirs

    return Path(platformdirs.user_data_dir("tether")) / "demo"


def run(args: argparse.Namespace) -> int:
    from supervisor import cmd_run

    folder = Path(args.dir) if args.dir else demo_folder()
    folder.mkdir(parents=True, exist_ok=True)
    args.dir = str(folder)
    args.words = ["demo"]
    return cmd_run.run(args)
