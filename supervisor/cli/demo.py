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


DEMO_GOAL = "Add a /login endpoint with rotating refresh tokens to the demo service"


def seed(folder: Path) -> None:
    """A first-time demo folder gets a goal and a next step, so a payload has substance."""
    from supervisor.store.tether_dir import TetherDir, init

    if TetherDir.at(folder).exists():
        return
    tether = init(folder, goal=DEMO_GOAL).tether
    tether.add_note("next", "write the refresh-token rotation test")


def run(args: argparse.Namespace) -> int:
    from supervisor.cli import run as cmd_run

    folder = Path(args.dir) if args.dir else demo_folder()
    folder.mkdir(parents=True, exist_ok=True)
    seed(folder)
    args.dir = str(folder)
    args.words = ["demo"]
    return cmd_run.run(args)
