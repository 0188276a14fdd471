"""Regenerate the SVG screenshots in screenshots/ (`make screenshots`).

Each screenshot is the real app around a real child in a real PTY at 160x48,
driven by Pilot the way a person would type. Names on the command line make only
those (``python -m tests.make_screenshots recall-partial``).
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path

from supervisor.app import TetherApp
from supervisor.config.profiles import load_profile
from supervisor.run.supervision import RunConfig
from supervisor.store.tether_dir import TetherDir, init
from tests.conftest import wait_for_screen, wait_until
from widgets.side_pane import SidePane

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "screenshots"
SIZE = (160, 48)


async def _wait_for(app: TetherApp, pilot, text: str, timeout: float = 20.0) -> None:
    await wait_for_screen(pilot, app, re.escape(text), timeout)
    await pilot.pause(0.3)


async def _type(pilot, text: str) -> None:
    await pilot.press(*text)
    await pilot.press("enter")


async def shoot(
    name: str,
    argv: list[str],
    script: Callable[[TetherApp, object], Awaitable[None]],
    env: dict[str, str],
    workdir: Path,
    size: tuple[int, int] = SIZE,
) -> Path:
    profile = "demo" if "demo-agent" in argv else "shell"
    if profile == "demo":  # as `tether demo` runs it: the agent says where its state is
        env = dict(env, TETHER_DEMO_FOLDER=str(workdir))
    config = RunConfig(
        argv=argv, workdir=workdir, env=env, title=f"tether · {name}", profile_name=profile
    )
    app = TetherApp(config)
    async with app.run_test(size=size) as pilot:
        await script(app, pilot)
        svg = app.export_screenshot(title=f"tether · {name}")
    path = OUT / f"{name}.svg"
    path.write_text(svg, encoding="utf-8")
    return path


async def main(only: set[str] | None = None) -> list[Path]:
    OUT.mkdir(exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="tether-shots-"))
    env = dict(os.environ, PS1="$ ", HOME=str(scratch), TETHER_DEMO_DELAY="0.2")
    work = scratch / "project"
    work.mkdir()
    for name in ("src", "tests", "docs"):
        (work / name).mkdir()
    (work / "README.md").write_text("# project\n")
    (work / "run.sh").write_text("#!/bin/sh\necho run\n")
    (work / "run.sh").chmod(0o755)
    (work / "notes.txt").write_text("refresh tokens live in Redis with a 15 minute TTL\n" * 3)
    bash = ["bash", "--norc", "--noprofile"]

    async def bash_session(app, pilot):
        await _wait_for(app, pilot, "$")
        await _type(pilot, "ls --color=always -l")
        await _type(
            pilot,
            r"printf '\e[1;31mbold red\e[0m \e[3mitalic\e[0m \e[4munderline\e[0m "
            r"\e[9mstrike\e[0m \e[7mreverse\e[0m \e[38;2;255;160;60mtruecolor\e[0m\n'",
        )
        await _type(pilot, "echo $TERM $COLORTERM; stty size")
        await _wait_for(app, pilot, "truecolor\n")

    async def vim_session(app, pilot):
        await _wait_for(app, pilot, "$")
        await _type(pilot, "vim -u NONE -c 'syntax on' notes.txt")
        await _wait_for(app, pilot, "notes.txt")
        await pilot.press("G", "o", *"added from inside tether", "escape")
        await pilot.pause(0.5)

    async def _decide_and_compact(app, pilot):
        await _type(pilot, "DECISION: refresh tokens in Redis, 15 minute TTL, rotate on use")
        await _wait_for(app, pilot, "Noted. DECISION")
        await _type(pilot, "/compact")
        await _wait_for(app, pilot, "Conversation compacted")

    async def demo_session(app, pilot):
        await _wait_for(app, pilot, "Understood: I will keep my state")  # the brief, first
        await _type(pilot, "add a login endpoint")
        await _wait_for(app, pilot, "Working on it: add a login")
        await _decide_and_compact(app, pilot)
        await _type(pilot, "what do you remember")
        await _wait_for(app, pilot, "(summary)")

    async def compacted(app, pilot):
        await _wait_for(app, pilot, "Understood: I will keep my state")
        await _decide_and_compact(app, pilot)
        app.query_one(SidePane).show_tab("events")
        await pilot.pause(1.0)

    async def narrow(app, pilot):
        await _wait_for(app, pilot, "Understood: I will keep my state")
        await _type(pilot, "/compact")
        await _wait_for(app, pilot, "Conversation compacted")
        await pilot.pause(0.5)

    async def preview(app, pilot):
        await compacted(app, pilot)
        await pilot.press("f7")
        await pilot.pause(1.5)

    async def rehydrated(app, pilot):
        await compacted(app, pilot)
        app.query_one(SidePane).show_tab("notes")
        await pilot.press("f6")
        await _wait_for(app, pilot, "Rehydrated: read the recovery payload")
        await pilot.pause(1.5)

    def demo_folder(name: str) -> Path:
        folder = scratch / name
        folder.mkdir()
        init(folder, goal="Ship the login endpoint with rotating refresh tokens")
        tether = TetherDir.at(folder)
        tether.add_note("done", "POST /login returns an access token")
        tether.add_note("next", "write the refresh-token rotation test")
        return folder

    async def recall_partial(app, pilot):
        await compacted(app, pilot)
        await pilot.press("f6")
        await _wait_for(app, pilot, "recall check for incident #1: partial")
        await pilot.pause(1.0)  # the banner: "1 decision not restated (...): F6 re-sends them"
        await pilot.press("f6")
        await _wait_for(app, pilot, "Restated the 1 missing decisions")
        app.query_one(SidePane).show_tab("events")
        await pilot.pause(1.5)

    def recall_folder(name: str) -> Path:
        folder = demo_folder(name)
        TetherDir.at(folder).add_decisions(
            ["sessions expire after 30 minutes idle because the kiosks are shared"], "demo"
        )
        return folder

    def ledger_folder() -> Path:
        """A project whose agent failed a test, fixed it, passed it, then changed the file and
        failed again, and wrote "all tests pass" anyway: what its tool hooks reported."""
        from tests.ledger.conftest import claude_bash, claude_bash_failed, claude_write, git, hook

        folder = scratch / "ledger"
        folder.mkdir()
        git(folder, "init", "-q")
        (folder / ".gitignore").write_text(".tether/\n__pycache__/\n")
        (folder / "test_calc.py").write_text("from calc import add\n")
        git(folder, "add", ".")
        git(folder, "commit", "-qm", "start")
        tether = init(folder, goal="fix add() in calc.py").tether
        tether.add_note("rejected", "`pip install ujson`: segfaults on 3.13; keep the stdlib json")
        hook(folder, claude_bash_failed("pytest -q test_calc.py", "==== 1 failed in 0.04s ===="))
        hook(folder, claude_write(folder / "calc.py", "def add(a, b):\n    return a + b\n"))
        hook(folder, claude_bash("pytest -q test_calc.py", "..\n==== 2 passed in 0.02s ====\n"))
        hook(folder, claude_write(folder / "calc.py", "def add(a, b):\n    return b - a\n"))
        hook(folder, claude_bash_failed("pytest -q test_calc.py", "==== 1 failed, 1 passed ===="))
        tether.add_note("done", "fixed add(); all tests pass")
        return folder

    async def ledger_session(app, pilot):
        from tests.ledger.conftest import claude_bash, hook

        await _wait_for(app, pilot, "$")
        await _type(pilot, "tether ledger")
        await _wait_for(app, pilot, "Files touched")
        await asyncio.to_thread(hook, app.config.workdir, claude_bash("pip install ujson"))
        await wait_until(
            pilot,
            lambda: "Rejected approach" in app.supervision.attention.state.banner_line(),
            20,
            what="the drift alarm in the banner",
        )
        app.query_one(SidePane).show_tab("progress")
        await pilot.pause(1.0)

    tools = scratch / "bin"
    tools.mkdir()
    (tools / "tether").write_text(f'#!/bin/sh\nexec {sys.executable} -m supervisor.cli "$@"\n')
    (tools / "tether").chmod(0o755)
    ledger_env = dict(env, PATH=f"{tools}:{env.get('PATH', '')}", PYTHONPATH=str(ROOT))

    demo = load_profile("demo").argv()
    # the demo leaves decision 2 out of its first ack, and does not compact by itself meanwhile
    forgetful = dict(env, TETHER_DEMO_FORGET="2", TETHER_DEMO_AUTO_COMPACT="0")
    shots = [
        ("terminal-bash", bash, bash_session, env, lambda: work, SIZE),
        ("demo", demo, demo_session, env, lambda: demo_folder("demo"), SIZE),
        ("recognize-compaction", demo, compacted, env, lambda: demo_folder("compacted"), SIZE),
        ("rehydrate-preview", demo, preview, env, lambda: demo_folder("preview"), SIZE),
        ("rehydrate-sent", demo, rehydrated, env, lambda: demo_folder("sent"), SIZE),
        ("narrow-80x24", demo, narrow, env, lambda: demo_folder("narrow"), (80, 24)),
        ("recall-partial", demo, recall_partial, forgetful, lambda: recall_folder("recall"), SIZE),
        ("ledger", bash, ledger_session, ledger_env, ledger_folder, SIZE),
    ]
    if shutil.which("vim"):
        shots.append(("terminal-vim", bash, vim_session, env, lambda: work, SIZE))
    written = []
    for name, argv, script, shot_env, folder, size in shots:
        if only is None or name in only:
            written.append(await shoot(name, argv, script, shot_env, folder(), size=size))
    shutil.rmtree(scratch, ignore_errors=True)
    return written


if __name__ == "__main__":
    from tests.pane_screens import make_pane_screenshots

    names = set(sys.argv[1:]) or None
    paths = asyncio.run(main(names)) + (list(make_pane_screenshots(OUT)) if names is None else [])
    for path in paths:
        print(Path(path).resolve().relative_to(ROOT))
    sys.exit(0)
