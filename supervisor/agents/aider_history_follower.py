"""Following aider's history files: its chat history (``.aider.chat.history.md``) and the
LLM history tether asks it to write under ``.tether/`` (``--llm-history-file``).

aider has no hooks and no journal: these two files are its only records besides the
screen. Both are followed from their end when the run starts (what they hold is earlier
runs'), line by line, a bounded read per tick; a file rotated or truncated is read again
from its start. The LLM history is tether's own file: one over :data:`LLM_HISTORY_LIMIT`
when a run starts is emptied (aider logs every request whole, so it grows fast; aider
appends, so it writes on at the new end). See :mod:`supervisor.recognize.aider_history`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from supervisor.recognize.aider_history import AiderChatHistory, AiderLlmHistory
from supervisor.recognize.observations import Observation
from supervisor.recognize.transcripts import OwnWords
from supervisor.store.line_tail import LineTail

AIDER_HISTORY = "aider_history"  # the profile integration
LLM_HISTORY_NAME = "agent/aider-llm-history.txt"  # under .tether/, with the other agents' files
LLM_HISTORY_OPTION = "--llm-history-file"
CHAT_HISTORY_OPTION = "--chat-history-file"
CHAT_HISTORY_NAME = ".aider.chat.history.md"
LLM_HISTORY_LIMIT = 32 * 1024 * 1024


def option_value(argv: Sequence[str], option: str) -> str | None:
    """The value of ``option`` on aider's command line (``--opt X`` or ``--opt=X``), last wins."""
    found: str | None = None
    for index, word in enumerate(argv):
        if word == option and index + 1 < len(argv):
            found = argv[index + 1]
        elif word.startswith(option + "="):
            found = word[len(option) + 1 :]
    return found


def llm_history_args(tether_root: Path, extra: Sequence[str]) -> list[str]:
    """What tether adds to aider's command line: its LLM history under ``.tether/``,
    unless the user names one (then tether follows theirs)."""
    if option_value(extra, LLM_HISTORY_OPTION) is not None:
        return []
    return [LLM_HISTORY_OPTION, str(tether_root / LLM_HISTORY_NAME)]


def chat_history_path(argv: Sequence[str], env: Mapping[str, str], workdir: Path) -> Path:
    """Where aider writes its chat history: ``--chat-history-file``, its variable, else
    ``.aider.chat.history.md`` in the git root (the work folder outside a repository).
    A path set in ``.aider.conf.yml`` is not read."""
    named = option_value(argv, CHAT_HISTORY_OPTION) or env.get("AIDER_CHAT_HISTORY_FILE")
    if named:
        path = Path(named).expanduser()
        return path if path.is_absolute() else workdir / path
    for folder in (workdir, *workdir.parents):
        if (folder / ".git").exists():
            return folder / CHAT_HISTORY_NAME
    return workdir / CHAT_HISTORY_NAME


def llm_history_path(argv: Sequence[str], workdir: Path, tether_root: Path) -> Path:
    named = option_value(argv, LLM_HISTORY_OPTION)
    if named:
        path = Path(named).expanduser()
        return path if path.is_absolute() else workdir / path
    return tether_root / LLM_HISTORY_NAME


def trim_llm_history(path: Path) -> None:
    """Empty tether's LLM history when it is over the limit (at a run's start, off the loop)."""
    try:
        if path.stat().st_size > LLM_HISTORY_LIMIT and path.is_file():
            os.truncate(path, 0)
    except OSError:
        pass


class AiderHistoryFollower:
    """The tails of aider's two history files and their parsers.

    Built without touching the disk; the first :meth:`poll` (off the loop) finds the
    files and opens them at their end."""

    def __init__(
        self,
        argv: Sequence[str],
        env: Mapping[str, str],
        workdir: Path,
        tether_root: Path,
        own_words: OwnWords | None = None,
    ) -> None:
        self.argv, self.env = list(argv), dict(env)
        self.workdir, self.tether_root = workdir, tether_root
        self.chat_tail: LineTail | None = None
        self.llm_tail: LineTail | None = None
        self.chat = AiderChatHistory()
        self.llm = AiderLlmHistory(own_words)

    def open(self) -> tuple[LineTail, LineTail]:
        """Find both files and follow them from their end (reads the disk)."""
        self.chat_tail = LineTail(chat_history_path(self.argv, self.env, self.workdir))
        llm_history = llm_history_path(self.argv, self.workdir, self.tether_root)
        # tether's own file is never read through a symlink (.tether/ is checked at the door).
        own = llm_history == self.tether_root / LLM_HISTORY_NAME
        self.llm_tail = LineTail(llm_history, follow_symlink=not own)
        return self.chat_tail, self.llm_tail

    def poll(self, now: float) -> list[Observation]:
        """Observations from the lines appended since the last poll (reads both files)."""
        chat, llm = self.chat_tail, self.llm_tail
        if chat is None or llm is None:
            chat, llm = self.open()
        found: list[Observation] = []
        for line in chat.poll():
            found += self.chat.feed(line, now)
        for line in llm.poll():
            found += self.llm.feed(line, now)
        if llm.caught_up and self.llm.reading:  # aider wrote the request whole
            found += self.llm.flush(now)
        return found
