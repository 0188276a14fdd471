"""An App whose notifications are plain text: what they quote is shown, never acted on.

Notifications quote files and the agent (an error naming a file from a clone, a
problem the engine met), and Textual reads a notification as markup and draws its
characters as they are. Every notification of the app and of its widgets passes
through :meth:`PlainNotifyApp.notify`, which shows control characters visibly
(:mod:`supervisor.shown`) and turns markup off.
"""

from __future__ import annotations

from textual.app import App
from textual.notifications import SeverityLevel

from supervisor.shown import shown, shown_line


class PlainNotifyApp(App[int]):
    """:class:`textual.app.App` with notifications that are text only."""

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        super().notify(
            shown(message),
            title=shown_line(title),
            severity=severity,
            timeout=timeout,
            markup=False,
        )
