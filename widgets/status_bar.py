"""One line under the terminal: agent state, context meter, compactions, checkpoint age.

Two counts that a reader could take for one: the compactions of this run (fusion's
count, from 0 at every start) and the number of the last incident, which continues
across runs because it numbers every incident ever recorded in `.tether/`. Each is
labelled with what it counts.
"""

from __future__ import annotations

from textual.reactive import reactive
from textual.widgets import Static


class StatusBar(Static):
    DEFAULT_CSS = """
    StatusBar { height: 1; background: $panel; color: $foreground; padding: 0 1; }
    """

    agent_state: reactive[str] = reactive("starting")
    context: reactive[str] = reactive("")
    compactions: reactive[int] = reactive(0)
    last_incident: reactive[int] = reactive(0)
    checkpoint_age: reactive[str] = reactive("")
    profile: reactive[str] = reactive("")

    def render(self) -> str:
        parts = [f"agent: {self.agent_state}"]
        if self.profile:
            parts.insert(0, self.profile)
        if self.context:
            parts.append(f"context {self.context}")
        parts.append(f"compactions {self.compactions} this run")
        if self.last_incident:
            parts.append(f"incidents {self.last_incident} in all")  # numbered across runs
        if self.checkpoint_age:
            parts.append(f"checkpoint {self.checkpoint_age}")
        return "  ·  ".join(parts)
