"""The Textual app: the one place that composes the engine and the widgets.

Left, the agent's terminal (every key goes to it); right, the side pane; a
status bar and the footer with tether's few keys. Data flows one way: the
session's output goes to the view and the detectors; the panes show `.tether/`.
"""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.widgets import Footer

from supervisor.errors import TetherError
from supervisor.pty_host import ExitStatus
from supervisor.session import AgentSession
from supervisor.store import TetherDir
from supervisor.supervision import RunConfig, Supervision
from widgets.confirm_quit import ConfirmQuit
from widgets.side_pane import SidePane
from widgets.status_bar import StatusBar
from widgets.terminal_view import TerminalView

__all__ = ["RunConfig", "TetherApp", "run_app"]


class TetherApp(App[int], inherit_bindings=False):
    """Supervises one agent session."""

    ENABLE_COMMAND_PALETTE = False
    CSS = """
    Screen { layout: vertical; }
    #main { height: 1fr; }
    """
    # Textual's own ctrl+q / ctrl+c bindings would steal keys the agent needs.
    BINDINGS = []

    def __init__(self, config: RunConfig) -> None:
        super().__init__()
        self.config = config
        self.title = config.title
        self.session = AgentSession(config.argv, cwd=str(config.workdir), env=config.env)
        self.supervision = Supervision(config, self.session)
        self._started = False
        keys = config.keymap
        self._bind(keys.quit, "request_quit", "Quit")
        self._bind(keys.switch_focus, "switch_focus", "Agent/pane")

    def _bind(self, key: str, action: str, description: str) -> None:
        """tether's keys are priority bindings: checked before the terminal gets the key."""
        self._bindings.bind(key, action, description, show=True, priority=True)

    def compose(self) -> ComposeResult:
        with Horizontal(id="main"):
            yield TerminalView(self.session, shift_enter=self.config.shift_enter, id="terminal")
            if self.config.side_pane:
                # A missing .tether/ is shown in the pane, which fills in once it appears.
                yield SidePane(TetherDir.at(self.config.workdir), id="side")
        yield StatusBar(id="status")
        yield Footer()

    @property
    def terminal(self) -> TerminalView:
        return self.query_one(TerminalView)

    def on_mount(self) -> None:
        if self.supervision.lock is None:
            try:
                self.supervision.open()
            except TetherError as error:
                self.exit(2, message=str(error))
                return
        view = self.terminal
        self.session.screen_listeners.append(view.screen_changed)
        self.session.exit_listeners.append(self._agent_exited)
        view.focus()

    def on_terminal_view_sized(self, message: TerminalView.Sized) -> None:
        if not self._started:
            self._started = True
            self._start_agent()
        else:
            self.supervision.resized(message.cols, message.rows)

    def _start_agent(self) -> None:
        try:
            self.session.start()
        except TetherError as error:
            self.exit(127, message=str(error))
            return
        self.supervision.start_recording()
        self.query_one(StatusBar).agent_state = "running"

    def _agent_exited(self, status: ExitStatus) -> None:
        bar = self.query_one(StatusBar)
        bar.agent_state = f"exited ({status.describe()})"
        self.terminal.screen_changed()

    def action_switch_focus(self) -> None:
        if self.terminal.has_focus:
            self.screen.focus_next()
            if self.focused is self.terminal:
                self.terminal.focus()
        else:
            self.terminal.focus()

    def action_request_quit(self) -> None:
        if not self.session.running:
            self.exit(0)
            return

        def decided(quit_: bool | None) -> None:
            if quit_:
                self.exit(0)

        self.push_screen(ConfirmQuit(), decided)

    async def action_quit(self) -> None:
        self.exit(0)

    def on_unmount(self) -> None:
        self.session.stop()
        self.supervision.close()


def run_app(config: RunConfig) -> int:
    """Take the folder's lock before the screen changes, so a refusal is a plain message."""
    app = TetherApp(config)
    app.supervision.open()
    result = app.run()
    if app.return_code and app.return_code != 0:
        return app.return_code
    return int(result or 0)
