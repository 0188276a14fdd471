"""`tether demo` says where its state lives and starts afresh on request, never at the cost of
a `.tether/` it did not create."""

from __future__ import annotations

import pytest

from supervisor.cli.demo import DEMO_GOAL, forget, seed
from supervisor.errors import TetherError
from supervisor.store.tether_dir import TetherDir, init
from tests.conftest import demo_app, wait_for_screen


def test_fresh_removes_the_demos_state_and_refuses_anyone_elses(tmp_path):
    demo = tmp_path / "demo"
    demo.mkdir()
    seed(demo)
    TetherDir.at(demo).add_note("done", "state from an earlier run")
    forget(demo)
    assert not TetherDir.at(demo).exists()
    seed(demo)
    assert DEMO_GOAL in TetherDir.at(demo).read_task()
    mine = tmp_path / "project"
    mine.mkdir()
    init(mine, goal="my own work")
    with pytest.raises(TetherError, match="is not the demo's"):
        forget(mine)
    assert "my own work" in TetherDir.at(mine).read_task()


async def test_the_demo_agent_says_where_the_demos_state_is(tmp_path, shell_env):
    shell_env["TETHER_DEMO_FOLDER"] = str(tmp_path)
    app = demo_app(tmp_path, shell_env)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await wait_for_screen(pilot, app, r"tether demo --fresh` starts afresh")
        assert "The demo's state is in ~/.tether/" in screen  # HOME is tmp_path here


def test_status_where_there_is_no_tether_points_at_the_demos(tmp_path, monkeypatch, capsys):
    from supervisor.cli import main
    from supervisor.cli.demo import demo_folder

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    demo = demo_folder()
    demo.mkdir(parents=True)
    seed(demo)
    here = tmp_path / "here"
    here.mkdir()
    assert main(["status", "--dir", str(here)]) == 2
    err = capsys.readouterr().err
    assert f"no .tether/ in {here}" in err
    assert f"`tether demo` keeps its own: tether status --dir {demo}" in err


async def test_alt_enter_is_a_new_line_in_the_demo_agents_prompt_as_in_claude_code(
    tmp_path, shell_env
):
    """Alt+Enter reaches the agent as ESC CR: the demo agent shows it as a line break and
    sends both lines (it swallowed the pair, so "one" and "two" ran together)."""
    app = demo_app(tmp_path, shell_env)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for_screen(pilot, app, r"Understood")
        await pilot.press(*"one", "alt+enter", *"two")
        await wait_for_screen(pilot, app, r"❯ one↵two")
        await pilot.press("enter")
        await wait_for_screen(pilot, app, r"Working on it: one\n  two")
