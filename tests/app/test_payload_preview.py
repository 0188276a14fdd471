"""The payload preview under Pilot: edit then send, cancel, the live token count."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Static

from supervisor.rehydrate.tokens import count_tokens
from tests.conftest import wait_until
from widgets.payload_preview import PayloadPreview

PAYLOAD = "Context check from tether.\n## Next step\nwrite artifact 12"


class Host(App[None]):
    """A bare app that opens the preview and keeps what it was dismissed with."""

    def __init__(self, text: str = PAYLOAD, budget: int = 0) -> None:
        super().__init__()
        self.text = text
        self.budget = budget
        self.results: list[str | None] = []

    def compose(self) -> ComposeResult:
        yield Static("agent terminal")

    def open_preview(self) -> None:
        self.push_screen(PayloadPreview(self.text, budget=self.budget), self.results.append)


def preview_shown(app: App[None]) -> bool:
    """The preview is up with its buttons (a pushed screen composes a turn later)."""
    return isinstance(app.screen, PayloadPreview) and bool(app.screen.query("#cancel"))


def tokens_label(app: Host) -> str:
    return str(app.screen.query_one("#preview-tokens", Static).render())


async def test_edit_then_send_dismisses_with_the_edited_text():
    app = Host()
    async with app.run_test() as pilot:
        app.open_preview()
        await wait_until(pilot, lambda: preview_shown(app), what="the preview")
        preview = app.screen
        assert isinstance(preview, PayloadPreview)
        await wait_until(pilot, lambda: preview.tokens is not None, what="the token count")
        assert preview.tokens == count_tokens(PAYLOAD)
        assert preview.text_area.has_focus
        preview.text_area.move_cursor(preview.text_area.document.end)
        await pilot.press("enter", *"DECISION: keep 250 ms")
        await pilot.click("#send")
        await wait_until(pilot, lambda: app.results, what="the preview's answer")
    assert app.results == [PAYLOAD + "\nDECISION: keep 250 ms"]


async def test_ctrl_s_sends_and_the_count_follows_the_edit():
    app = Host(budget=5)
    async with app.run_test() as pilot:
        app.open_preview()
        await wait_until(pilot, lambda: preview_shown(app), what="the preview")
        preview = app.screen
        await wait_until(pilot, lambda: preview.tokens is not None, what="the token count")
        first = preview.tokens
        assert "over budget" in tokens_label(app)
        await pilot.press("ctrl+home", "end", *" and more words here")
        await wait_until(
            pilot,
            lambda: preview.tokens is not None and preview.tokens.n > first.n,
            what="a new count",
        )
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: app.results, what="the preview's answer")
    assert len(app.results) == 1 and app.results[0].startswith("Context check from tether. and")


async def test_escape_and_the_cancel_button_dismiss_with_none():
    app = Host()
    async with app.run_test() as pilot:
        app.open_preview()
        await wait_until(pilot, lambda: preview_shown(app), what="the preview")
        await pilot.press("x", "escape")
        await wait_until(pilot, lambda: app.results == [None], what="the first answer")
        assert not isinstance(app.screen, PayloadPreview)
        app.open_preview()
        await wait_until(pilot, lambda: preview_shown(app), what="the preview")
        await pilot.click("#cancel")
        await wait_until(pilot, lambda: len(app.results) == 2, what="the second answer")
    assert app.results == [None, None]


async def test_keys_it_does_not_use_reach_the_app():
    """tether's own keys are priority bindings (see supervisor/app.py); the preview leaves them."""
    seen: list[str] = []

    class Listening(Host):
        BINDINGS = [Binding("f6", "mark", "mark", priority=True)]

        def action_mark(self) -> None:
            seen.append("f6")

    app = Listening()
    async with app.run_test() as pilot:
        app.open_preview()
        await wait_until(pilot, lambda: preview_shown(app), what="the preview")
        await pilot.press("f6")
        await wait_until(pilot, lambda: seen, what="the app's key")
        assert isinstance(app.screen, PayloadPreview)
    assert seen == ["f6"]


async def test_the_editor_starts_at_the_end_and_ctrl_home_and_ctrl_end_move_through_it():
    app = Host()
    async with app.run_test() as pilot:
        app.open_preview()
        await wait_until(pilot, lambda: preview_shown(app), what="the preview")
        area = app.screen.text_area
        end = area.document.end
        assert area.cursor_location == end  # a typed line goes after the payload
        await pilot.press("ctrl+home")
        assert area.cursor_location == (0, 0)
        await pilot.press("ctrl+shift+end")
        assert area.selected_text == PAYLOAD
        await pilot.press("ctrl+home", "ctrl+end", "enter", *"appended")
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: app.results, what="the preview's answer")
    assert app.results == [PAYLOAD + "\nappended"]
