"""F6 into a shell asks first: the payload's lines would run there as commands (issue 27)."""

from __future__ import annotations

import sys

from supervisor.app import TetherApp
from supervisor.run.supervision import RunConfig
from supervisor.store.tether_dir import init
from tests.conftest import wait_for_screen, wait_until
from widgets.confirm_shell_paste import ConfirmShellPaste

# Prints each read as hex, one line each: what a shell would have been given to run.
KEYLOGGER = (
    "import os, tty\n"
    "tty.setraw(0)\n"
    "print('ready', end='\\r\\n', flush=True)\n"
    "while True:\n"
    "    print(os.read(0, 4096).hex(), end='\\r\\n', flush=True)\n"
)


async def test_f6_into_a_shell_pastes_only_after_the_user_says_yes(tmp_path, shell_env):
    init(tmp_path, goal="run `tether init` in a cloned repository")
    config = RunConfig(
        argv=[sys.executable, "-c", KEYLOGGER], workdir=tmp_path, env=shell_env, side_pane=False
    )
    app = TetherApp(config)
    async with app.run_test(size=(110, 30)) as pilot:
        await wait_for_screen(pilot, app, r"^ready$")
        assert app.supervision.profile.kind == "shell"
        await pilot.press("f6")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmShellPaste), what="ask")
        assert "would run there as commands" in app.screen.question
        await pilot.press("n")
        await wait_until(pilot, lambda: "Nothing was pasted" in app.banner.text, what="banner")
        assert app.session.emulator.display()[1:] == [""] * (
            len(app.session.emulator.display()) - 1
        )
        await pilot.press("f6")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmShellPaste), what="ask")
        await pilot.press("y")
        goal = b"run `tether init`".hex()
        await wait_until(
            pilot, lambda: goal in "".join(app.session.emulator.display()), what="the paste"
        )


async def test_f7_send_into_a_shell_asks_too_and_pastes_the_edited_text(tmp_path, shell_env):
    """The preview's Send is offered into a shell like F6: it asks, then pastes what the
    user edited (it used to refuse outright, with a banner saying to confirm that offered
    no way to)."""
    from textual.widgets import TextArea

    from widgets.payload_preview import PayloadPreview

    init(tmp_path, goal="run `tether init` in a cloned repository")
    config = RunConfig(
        argv=[sys.executable, "-c", KEYLOGGER], workdir=tmp_path, env=shell_env, side_pane=False
    )
    app = TetherApp(config)
    async with app.run_test(size=(110, 30)) as pilot:
        await wait_for_screen(pilot, app, r"^ready$")
        await pilot.press("f7")
        await wait_until(pilot, lambda: isinstance(app.screen, PayloadPreview), what="preview")
        app.screen.query_one(TextArea).text = "EDITED BY HAND"
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmShellPaste), what="ask")
        await pilot.press("y")
        edited = b"EDITED BY HAND".hex()
        await wait_until(
            pilot, lambda: edited in "".join(app.session.emulator.display()), what="the paste"
        )
