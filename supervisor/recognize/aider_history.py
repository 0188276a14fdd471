"""aider's two history files, line by line -> observations (pure: lines in, observations out).

aider (0.86.2) has no hooks and no journal; it writes two text files:

- ``.aider.chat.history.md`` (its own, in the work folder or the git root): what it shows,
  each tool line as a blockquote (``> All chat history cleared.  ``). With ``--verbose``
  its summarizer's thread writes ``> Starting to summarize chat history.`` and
  ``> Finished summarizing chat history.`` there too. :class:`AiderChatHistory` reads
  those as a fold (trigger auto: aider has no /compact) and ``/clear`` / ``/reset`` as a
  wipe.
- the file ``--llm-history-file`` names: each request to the model (``TO LLM <time>``,
  its messages as ``-------`` then ``ROLE line`` lines) and each reply (``LLM RESPONSE
  <time>``), written at once per entry. The summarizer's own request is not logged
  (it goes through ``simple_send_with_retries``), but the summary it returned is the
  first message of every request after it was swapped in: a USER message starting
  "I spoke to you previously about a number of things.". :class:`AiderLlmHistory`
  reads a new summary there as a fold with its summary (so the loss audit runs), and the
  user's messages the previous request held and this one lost as the folded window. A
  summary aider threw away (its thread raced the main one) never reaches a request: it
  lost nothing, and is not seen here. It is seen only at the next request, however
  late (:data:`AT_NEXT_TURN`).
"""

from __future__ import annotations

import re

from supervisor.recognize.observations import (
    AT_NEXT_TURN,
    AUTO,
    COMPACTION,
    COMPACTION_STARTED,
    TRANSCRIPT,
    WIPE,
    Observation,
)
from supervisor.recognize.transcripts import WINDOW_CHARS, WINDOW_ENTRIES, OwnWords

CHAT_HISTORY = "chat_history"  # observation channels
LLM_HISTORY = "llm_history"

_CHAT_LINES = {
    "> Starting to summarize chat history.": COMPACTION_STARTED,
    "> Finished summarizing chat history.": COMPACTION,
    "> All chat history cleared.": WIPE,
    "> All files dropped and chat history cleared.": WIPE,
}

_HEADER = re.compile(r"^(TO LLM|LLM RESPONSE) (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)$")
_SEPARATOR = "-------"
_ROLE = re.compile(r"^(SYSTEM|USER|ASSISTANT)(?: (.*))?$")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # kept: tab, newline
_REMINDER = "\n\n# *SEARCH/REPLACE block* Rules:"  # --edit-format diff's, on the last message
# The user messages aider writes itself (aider/coders/base_prompts.py): not the user's words.
_AIDER_WORDS = (
    "I have *added these files to the chat*",
    "Here are summaries of some files present in my git repository.",
    "Here are some READ ONLY files",
    "I am not sharing any files",
    "Don't try and edit any existing code without asking me",
    "I switched to a new code base.",
    "I committed the changes with git hash",
    "I updated the files.",
    "I edited the files myself.",
    "I didn't see any properly formatted edits",
)
SUMMARY_PREFIX = "I spoke to you previously about a number of things."
SUMMARY_LIMIT = 64 * 1024  # characters of a summary kept (the audit runs on the loop)


class AiderChatHistory:
    """``.aider.chat.history.md`` lines -> a fold (with --verbose) or a wipe."""

    def feed(self, line: str, now: float) -> list[Observation]:
        kind = _CHAT_LINES.get(line.rstrip())
        if kind is None:
            return []
        details = {"channel": CHAT_HISTORY}
        trigger = AUTO if kind in (COMPACTION, COMPACTION_STARTED) else None
        return [Observation(kind, TRANSCRIPT, now, trigger=trigger, details=details)]


class _Request:
    """One ``TO LLM`` entry as it is read: its messages, and its summary if it has one."""

    def __init__(self) -> None:
        self.messages: list[tuple[str, list[str]]] = []
        self.size = 0

    def add_line(self, line: str) -> None:
        if line == _SEPARATOR:
            self.messages.append(("", []))
            return
        match = _ROLE.match(line)
        if match is None or not self.messages:
            return
        role, text = match.group(1), match.group(2) or ""
        current = self.messages[-1]
        if not current[0]:
            self.messages[-1] = current = (role, current[1])
        if current[0] == role and self.size < SUMMARY_LIMIT + WINDOW_ENTRIES * WINDOW_CHARS:
            current[1].append(text)
            self.size += len(text) + 1

    def summary(self) -> str | None:
        """The summary aider swapped in: the first user message that opens as one (its
        example messages and the files it shares come before the history)."""
        for role, lines in self.messages:
            if role == "USER" and lines and lines[0].startswith(SUMMARY_PREFIX):
                text = _CONTROL.sub("", "\n".join(lines))
                return text[len(SUMMARY_PREFIX) :].strip()[:SUMMARY_LIMIT] or None
        return None

    def user_messages(self) -> list[str]:
        """The user messages, each without the edit-format reminder aider adds to the last."""
        texts = []
        for role, lines in self.messages:
            text = "\n".join(lines).split(_REMINDER, 1)[0].strip()[:WINDOW_CHARS]
            if role == "USER" and text:
                texts.append(text)
        return texts


class AiderLlmHistory:
    """``--llm-history-file`` lines -> a fold with aider's summary, at the request after it."""

    def __init__(self, own_words: OwnWords | None = None) -> None:
        self.own_words = own_words if own_words is not None else OwnWords()
        self._request: _Request | None = None  # the TO LLM entry being read
        self._previous: list[str] = []  # the user's messages of the last request
        self._summary: str | None = None  # the summary the last request carried

    def feed(self, line: str, now: float) -> list[Observation]:
        header = _HEADER.match(line)
        if header is None:
            if self._request is not None:
                self._request.add_line(line)
            return []
        found = self.flush(now)
        if header.group(1) == "TO LLM":
            self._request = _Request()
        return found

    @property
    def reading(self) -> bool:
        """A request with messages is being read (complete unless more lines come)."""
        return self._request is not None and bool(self._request.messages)

    def flush(self, now: float) -> list[Observation]:
        """The request read so far is complete (aider writes each entry at once)."""
        request, self._request = self._request, None
        if request is None:
            return []
        summary = request.summary()
        users = request.user_messages()
        previous, self._previous = self._previous, users
        known, self._summary = self._summary, summary
        if summary is None or summary == known:
            return []
        kept = set(users)
        folded = tuple(
            text
            for text in previous
            if text not in kept
            and not text.startswith((SUMMARY_PREFIX, *_AIDER_WORDS))
            and not self.own_words.said(text)
        )[-WINDOW_ENTRIES:]
        # Its logged time (whole seconds of local time) is not the fold's: no entry_at.
        details: dict[str, object] = {"channel": LLM_HISTORY, AT_NEXT_TURN: True}
        return [
            Observation(
                COMPACTION,
                TRANSCRIPT,
                now,
                trigger=AUTO,
                summary=summary,
                details=details,
                folded=folded,
            )
        ]
