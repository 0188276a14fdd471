"""The base of the messages a widget posts about itself.

Textual picks a message's handler by its ``control`` (``@on(NotesPane.Saved, "#notes")``);
every widget message here names the widget that posted it first, so the base says once
that this widget is the control.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

from textual.message import Message
from textual.widget import Widget

PostedBy = TypeVar("PostedBy", bound=Widget)


@dataclass
class WidgetMessage(Message, Generic[PostedBy]):
    """A message about ``widget``, the one that posted it, which is its ``control``."""

    widget: PostedBy

    @property
    def control(self) -> PostedBy:
        return self.widget
