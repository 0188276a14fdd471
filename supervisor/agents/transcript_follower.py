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
from supervisor.recognize.tool_reports import Report, ToolReports
from supervisor.recognize.transcripts import ClaudeTranscript, CodexRollout, OwnWords
from supervisor.store.jsonl_tail import JsonlTail

NEW_FILE_SLACK = 1.0  # seconds: a file changed this long before the run started is still new


class TranscriptFollower:
    """The tail of one transcript (Claude Code), rollout (Codex) or journal (Copilot CLI)
    file and its parser."""

    def __init__(
        self,
        *,
        claude: bool,
        started_at: float,
        own_words: OwnWords | None = None,
        copilot: bool = False,
    ) -> None:
        """``own_words``: what tether sent the agent, kept out of the folded window."""
        self.claude = claude
        self.copilot = copilot
        self.started_at = started_at
        self.own_words = own_words if own_words is not None else OwnWords()
        self.tail: JsonlTail | None = None
        self.parser: ClaudeTranscript | CodexRollout | CopilotJournal | None = None
        self.bad_entries = 0  # entries the parser could not read
        self.tools = ToolReports()
        self.reports: list[Report] = []  # finished tool calls, for the ledger's backfill

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
        except (OSError, ValueError):  # missing yet, or a name no file can have
            new_file = True
        previous = self.parser
        self.tail = JsonlTail(target, start=0 if new_file else "tail")
        if self.copilot:
            self.parser = CopilotJournal(self.started_at - NEW_FILE_SLACK)
        else:
            parser = ClaudeTranscript if self.claude else CodexRollout
            self.parser = parser(self.own_words)
        if previous is not None:
            self.parser.session_id = getattr(previous, "session_id", None)

    def forget(self) -> None:
        """The agent was restarted: its next file is found again."""
        self.tail, self.parser = None, None

    @property
    def refused(self) -> str | None:
        """Why the file named cannot be followed (a folder, a named pipe), if it cannot."""
        return self.tail.refused if self.tail is not None else None

    def poll(self, now: float) -> list[Observation]:
        """Observations from what was appended since the last poll (reads the file).

        An entry of a shape the parser does not expect is skipped and counted
        (:attr:`bad_entries`): a file the agent (or anyone) wrote never stops tether."""
        tail, parser = self.tail, self.parser
        if tail is None or parser is None:
            return []
        found: list[Observation] = []
        for record, history in tail.poll():
            try:
                found += parser.feed(record, now, history=history)
                if not history:
                    self.reports += self.tools.feed(record)
            except Exception:  # a line of any shape: skipped, never fatal
                self.bad_entries += 1
        return found

    def take_reports(self) -> list[Report]:
        """The tool calls finished since the last take (the session file's own record)."""
        reports, self.reports = self.reports, []
        return reports
