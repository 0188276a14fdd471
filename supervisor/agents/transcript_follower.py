"""Following the agent's one current session file: which file, from where, with which parser.

A hook names the transcript, or discovery finds it; a file tether has not seen
being written since the run started is read from its tail (history for the
meter, never new incidents), a new one from its start. Switching files (after
/clear, or a restart) keeps the session id the parser learned.
"""

from __future__ import annotations

from pathlib import Path

from supervisor.recognize.copilot_journal import CopilotJournal
from supervisor.recognize.observations import Observation
from supervisor.recognize.transcripts import ClaudeTranscript, CodexRollout
from supervisor.store.jsonl_tail import JsonlTail

NEW_FILE_SLACK = 1.0  # seconds: a file changed this long before the run started is still new


class TranscriptFollower:
    """The tail of one transcript (Claude Code), rollout (Codex) or journal (Copilot CLI)
    file and its parser."""

    def __init__(self, *, claude: bool, started_at: float, copilot: bool = False) -> None:
        self.claude = claude
        self.copilot = copilot
        self.started_at = started_at
        self.tail: JsonlTail | None = None
        self.parser: ClaudeTranscript | CodexRollout | CopilotJournal | None = None

    @property
    def path(self) -> Path | None:
        return self.tail.path if self.tail is not None else None

    def follow(self, path: object) -> None:
        """Follow ``path`` (as a hook gave it: anything) unless it is the file followed now."""
        if not isinstance(path, str | Path) or not str(path):
            return
        if self.tail is not None and str(self.tail.path) == str(path):
            return
        target = Path(path)
        try:
            new_file = target.stat().st_mtime >= self.started_at - NEW_FILE_SLACK
        except OSError:
            new_file = True
        previous = self.parser
        self.tail = JsonlTail(target, start=0 if new_file else "tail")
        self.parser = (
            ClaudeTranscript()
            if self.claude
            else CopilotJournal(self.started_at - NEW_FILE_SLACK)
            if self.copilot
            else CodexRollout()
        )
        if previous is not None:
            self.parser.session_id = getattr(previous, "session_id", None)

    def forget(self) -> None:
        """The agent was restarted: its next file is found again."""
        self.tail, self.parser = None, None

    def poll(self, now: float) -> list[Observation]:
        """Observations from what was appended since the last poll (reads the file)."""
        tail, parser = self.tail, self.parser
        if tail is None or parser is None:
            return []
        return [
            observation
            for record, history in tail.poll()
            for observation in parser.feed(record, now, history=history)
        ]
