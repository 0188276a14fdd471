"""`tether run`'s way to the agent's first frame imports only what that frame needs.

The agent is spawned, and its first screens painted, before the engine and the UI
load (supervisor/run/early_spawn.py): every module imported before then delays the
first frame. A real `tether run -- CMD` runs here in a real PTY; a spy in its process
writes down ``sys.modules`` when the agent is forked (the ``os.forkpty`` audit event)
and when the early painter has started, then ends the process there.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.locations import REPO
from tests.tether_process import run_in_a_terminal

SPY = r"""
import json, os, sys

out = os.environ["SPY_OUT"]
seen = {}


def hook(event, args):
    if event == "os.forkpty" and "fork" not in seen:
        seen["fork"] = sorted(sys.modules)


sys.addaudithook(hook)
import supervisor.cli.run as run  # what `tether run` imports first anyway

painter_of, spawn_ahead = run._early_painter, run._spawn_ahead
spawned = []


def spy(session):
    painter = painter_of(session)
    seen["painter"] = sorted(sys.modules)
    seen["collecting"] = __import__("gc").isenabled()
    with open(out, "w") as f:
        json.dump(seen, f)
    painter.finish()
    painter.release()
    for ahead in spawned:  # the agent hung up on, its socket folder and the lock let go
        ahead.abandon()
    os._exit(0)


def spawn_spy(*args):
    ahead = spawn_ahead(*args)
    spawned.extend([ahead] if ahead is not None else [])
    return ahead


run._early_painter, run._spawn_ahead = spy, spawn_spy
from supervisor.cli import main

sys.exit(main(["run", "--", "sh", "-c", "printf ready; sleep 30"]))
"""

# Nothing of the engine, the UI, the tokenizer, the watcher, git or the checkpoints.
NEVER = (
    "textual",
    "rich",
    "tiktoken",
    "watchdog",
    "asyncio",
    "widgets",
    "supervisor.app",
    "supervisor.run.launch",
    "supervisor.run.supervision",
    "supervisor.rehydrate",
    "supervisor.recognize.fusion",
    "supervisor.store.checkpoints",
    "supervisor.store.watcher",
)
# Before the fork, not even the profile parser (RE2, TOML) for a plain command with no
# settings files, nor the emulator (it loads while the agent starts).
NOT_BEFORE_FORK = (
    "re2",
    "tomllib",
    "supervisor.config.profiles",
    "supervisor.config.keymap",
    "supervisor.agents.hook_server",
    "supervisor.terminal.session",
    "supervisor.terminal.avt_emulator",
    "avt",
)
# Until the painter runs, the profile parser and the hook server wait too (the server comes
# with SpawnedAhead.complete). RE2 may come with the emulator: libghostty-vt's adapter
# finds the runs it takes raw with it.
NOT_BEFORE_PAINTER = ("tomllib", "supervisor.config.profiles", "supervisor.agents.hook_server")


def _loaded(modules: list[str], names: tuple[str, ...]) -> list[str]:
    return [m for m in modules if any(m == n or m.startswith(n + ".") for n in names)]


def _early_modules(work: Path, tmp_path: Path) -> dict[str, list[str]]:
    out = tmp_path / "seen.json"
    config = tmp_path / "config"  # no keys.toml, notify.toml or profiles of the user's
    config.mkdir()
    env = {
        **os.environ,
        "SPY_OUT": str(out),
        "TETHER_CONFIG_DIR": str(config),
        "COLUMNS": "160",  # the PTY's size is 0x0: shutil reads these first
        "LINES": "48",
        "PYTHONPATH": str(REPO),
    }
    env.pop("TETHER_EARLY_START", None)
    _code, shown = run_in_a_terminal(SPY, work, env)
    assert out.exists(), f"the spy never saw the painter start; the terminal showed {shown!r}"
    return json.loads(out.read_text())


@pytest.mark.parametrize("folder", ["new folder", "folder with .tether/ in a git repository"])
def test_the_first_frame_waits_for_nothing_it_does_not_show(tmp_path, folder):
    work = tmp_path / "work"
    work.mkdir()
    if folder != "new folder":  # a user's next run: the trust check asks git first
        subprocess.run(["git", "init", "-q"], cwd=work, check=True)
        from supervisor.store.tether_dir import init

        init(work)
    seen = _early_modules(work, tmp_path)
    assert set(seen) == {"fork", "painter", "collecting"}
    assert seen["collecting"] is False  # no garbage collection on the way either
    assert _loaded(seen["fork"], NEVER + NOT_BEFORE_FORK) == []
    assert _loaded(seen["painter"], NEVER + NOT_BEFORE_PAINTER) == []
    assert "supervisor.terminal.avt_emulator" in seen["painter"]  # the spy saw the real path
