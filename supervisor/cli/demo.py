"""`tether demo`: the whole flow on the built-in demo agent, in a demo folder of its own.

The folder is not where the user typed the command (state carries between runs there),
so the demo agent says on screen where it is, and ``--fresh`` starts over.
"""

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
    parser.add_argument(
        "--fresh",
        action="store_true",
        help="start afresh: remove the demo's .tether/ (only one the demo itself created)",
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


def forget(folder: Path) -> None:
    """``--fresh``: remove the demo's `.tether/`, but never one the demo did not create."""
    import shutil

    from supervisor.errors import TetherError
    from supervisor.store.tether_dir import TetherDir

    tether = TetherDir.at(folder)
    if not tether.exists():
        return
    try:
        task = tether.read_task()
    except TetherError:
        task = ""
    if DEMO_GOAL not in task:
        raise TetherError(
            f"{tether.root} is not the demo's (its task.md has another goal); "
            "--fresh removes only a .tether/ the demo created"
        )
    shutil.rmtree(tether.root)
    print(f"tether demo: removed {tether.root}; starting afresh")


def run(args: argparse.Namespace) -> int:
    import os

    from supervisor.agents.demo_agent import DEMO_FOLDER_ENV
    from supervisor.cli import run as cmd_run

    folder = (Path(args.dir) if args.dir else demo_folder()).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    if args.fresh:
        forget(folder)
    seed(folder)
    os.environ[DEMO_FOLDER_ENV] = str(folder)  # the demo agent says where its state is
    args.dir = str(folder)
    args.words = ["demo"]
    return cmd_run.run(args)
