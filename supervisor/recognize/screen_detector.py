"""Profile regexes over the emulator's screen rows, turned into observations.

Why the screen and not the bytes: the agents place words with cursor moves
(``Context`` ``ESC[13;11H`` ``compacted``) and rewrite spinner lines cell by
cell, so a marker may exist only on the screen. Only rows the emulator reports
dirty are matched; the matches of every row are cached, so the detector also
knows what is visible on the whole screen.

De-duplication of loss markers (compaction, wipe) — the rule, and why:

* An occurrence is keyed by (kind, matched text, the nearest non-blank row
  above it at the time the marker row was drawn). The context row tells two
  compactions apart when the agent prints the same words each time (the demo
  agent's marker sits under the reply before it).
* While a key is visible on the screen, it is one observation however often it
  is redrawn (Ink repaints, diff renderers, the row moving up). Keys are
  counted, not just noted: a long session compacts many times with the same
  lines around the marker, so a second row with a key already visible is a new
  compaction when there was activity since that key was last reported (an Ink
  redraw that leaves a stale copy behind, with no activity, is still one).
* A key that left the screen and comes back is a redraw of history (resize,
  full repaint, scrolling) — not new — unless there was *activity* since it was
  last visible: input sent to the agent (:meth:`note_input`) or a busy /
  compaction-started cue appearing. Claude Code repaints its banner and the
  same "✻ Conversation compacted" line under it after every /compact; the
  /compact typed in between is what makes the second one new.
* A resumed session (``claude --continue``, ``codex resume``) redraws its old
  history with old compaction notices. Constructed with ``replaying=True``,
  the detector treats every loss marker as history until the first input is
  sent; it remembers their keys so later redraws stay history too. A real
  compaction in that window is still reported by the hook/transcript sources,
  which are trusted above the screen.

* A marker is also counted, by its words, in the screen *and* the scrollback:
  a redraw repeats rows already seen, it does not add to them. A loss is new
  only when the marker is there more often than this detector has already
  accounted for (whatever the row above it says now), or, for a compaction,
  when a compaction-started cue appeared since the last one was accounted
  (Claude Code erases its old notice when it repaints after /compact, so the
  new one may be no more numerous than the old). After a resize (the
  emulator's size changed between two looks) the agent redraws its screen:
  until the next input or a new compaction-started cue, no loss marker is new,
  and no cue the redraw brings back counts as activity. This is identity, not
  a time window: a resize long after a compaction still repeats only it.

A compaction regex with a named group ``auto`` tells the trigger from the marker
itself: "auto" when the group matched, "manual" when not (the demo prints
``(auto)``); without the group the trigger is left to the sources that know.

Other kinds (context meter, compaction started, context full, exit hints) are
reported when they appear or, for the meters, when the percentage changes.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace

from supervisor.config.profiles import MarkerRules
from supervisor.recognize.observations import (
    AGENT_STATE,
    AUTO,
    COMPACTION,
    COMPACTION_FAILED,
    COMPACTION_STARTED,
    MANUAL,
    SCHEDULED_TRIGGERS,
    SCREEN,
    WIPE,
    Observation,
)
from supervisor.terminal.emulator import Emulator

LOSS_KINDS = (COMPACTION, WIPE)
_STATE_KINDS = ("prompt_ready", "busy")
_PERCENT_KINDS = ("context_low", "context_used")
_ACTIVITY_KINDS = (COMPACTION_STARTED, "busy")
_BLANK = re.compile(r"^[\s─━═]*$")


@dataclass(frozen=True, slots=True)
class _Match:
    kind: str
    channel: str  # "reN": which of the kind's regexes matched
    text: str  # the matched text, stripped
    key: tuple[str, str, str]  # loss kinds: (kind, text, context above); else (kind, text, "")
    percent: int | None = None
    session: str | None = None
    trigger: str | None = None


class ScreenDetector:
    """Feed it the dirty rows after each emulator update; it returns new observations."""

    def __init__(self, rules: MarkerRules, *, replaying: bool = False) -> None:
        self._rules = [(kind, patterns) for kind, patterns in rules.items() if patterns]
        self._markers = rules
        self._replaying = replaying
        self._texts: list[str] = []
        self._row_matches: list[list[_Match]] = []
        self._seen_losses: dict[tuple[str, str, str], int] = {}  # key -> activity count
        self._activity = 0
        self._reported_at: dict[tuple[str, str, str], int] = {}  # loss key -> activity count
        self._percent: dict[str, int] = {}
        self._state: str | None = None
        self._pending_input = False
        # identity by count (see the module docstring): (kind, words) -> occurrences known
        self._accounted: Counter[tuple[str, str]] = Counter()
        self._on_screen: Counter[tuple[str, str]] = Counter()  # as of the last look
        self._starts = 0  # compaction-started cues seen appear
        self._credited: dict[tuple[str, str], int] = {}  # notice words -> starts it answered
        self._size: tuple[int, int] | None = None
        self._redraw = False  # resized: what the agent draws until input is a redraw
        self._history_words: dict[str, tuple[tuple[str, str], ...]] = {}  # row text -> found

    # -------------------------------------------------------------- inputs

    @property
    def replaying(self) -> bool:
        return self._replaying

    def note_input(self) -> None:
        """Input reached the agent: the resume replay is over, and it counts as activity.

        Takes effect after the next scan that brings rows: rows held back until
        then (synchronized output) were drawn before the input, not after it.
        """
        self._pending_input = True

    def visible(self, kind: str) -> bool:
        """Whether a marker of ``kind`` is on the screen now (as of the last scan)."""
        return any(m.kind == kind for row in self._row_matches for m in row)

    @property
    def state(self) -> str | None:
        """ "busy", "waiting" or None (no cue visible), from the profile's screen cues."""
        return self._state

    # -------------------------------------------------------------- scanning

    def scan(
        self,
        emulator: Emulator,
        now: float,
        dirty: Iterable[int] | None = None,
        scrolled: int = 0,
    ) -> list[Observation]:
        """Match the changed rows (all rows when ``dirty`` is None) and report what is new.

        ``scrolled``: how many lines left the top of the screen since the last scan
        (``FeedResult.scrolled_off``). A marker pushed off the top is gone, not
        moved: without this a new marker arriving in the same scroll would take
        over its key and never be reported.
        """
        rows = emulator.rows
        size = (emulator.cols, rows)
        resized = self._size is not None and size != self._size
        self._size = size
        if resized:
            self._redraw = True
            self._credited = dict.fromkeys(self._accounted, self._starts)
        if len(self._texts) != rows:
            self._texts = [""] * rows
            self._row_matches = [[] for _ in range(rows)]
            dirty = None
        changed = sorted(range(rows) if dirty is None else {y for y in dirty if 0 <= y < rows})
        for y in changed:
            self._texts[y] = emulator.row_text(y)
        before_rows = [(m.key, y) for y, row in enumerate(self._row_matches) for m in row]
        # rows of the last scan that cannot have scrolled off the top since
        kept = Counter(key for key, y in before_rows if y - scrolled >= 0)
        for y in changed:
            self._row_matches[y] = self._match_row(y, emulator)
        self._rebind_moved(kept)
        matches = [m for row in self._row_matches for m in row]
        counts = Counter(m.key for m in matches)
        observations: list[Observation] = []

        # activity cues first, so a compaction drawn in the same frame as its spinner counts
        if not resized:  # a resize's reflow moves cues, it draws none
            for key, count in counts.items():
                if key[0] in _ACTIVITY_KINDS and count > kept.get(key, 0):
                    self._activity += 1
        present = _Present(self, emulator, matches, everything=resized)
        self._count_starts(present, resized)
        reported: set[tuple[str, str, str]] = set()
        for match in matches:
            key = match.key
            if key in reported or counts[key] <= kept.get(key, 0):
                continue
            reported.add(key)
            observation = self._new_match(match, now, again=key in kept)
            if key[0] in LOSS_KINDS and not self._new_by_identity(match, present):
                observation = None
            if resized and key[0] in _ACTIVITY_KINDS:
                observation = None  # the reflow moved an old cue: nothing started
            if observation is not None and key[0] == COMPACTION_FAILED:
                # the start it answers announced nothing: no redrawn notice may take it
                self._credited = dict.fromkeys(self._accounted, self._starts)
            if observation is not None:
                observations.append(observation)
                if key[0] in LOSS_KINDS:
                    self._reported_at[key] = self._activity
        for match in matches:
            if match.kind in LOSS_KINDS:
                self._seen_losses[match.key] = self._activity
        for words, count in present.known.items():
            if words[0] in LOSS_KINDS and count > self._accounted[words]:
                self._accounted[words] = count  # rows seen now are history from now on
        if self._pending_input and changed:
            self._pending_input = False
            self._replaying = False
            self._redraw = self._redraw and resized  # input before a resize: the redraw is next
            self._activity += 1

        state = self._screen_state()
        if state != self._state and state is not None:
            observations.append(Observation(AGENT_STATE, SCREEN, now, details={"state": state}))
        self._state = state
        return observations

    def _count_starts(self, present: _Present, resized: bool) -> None:
        """A compaction-started cue there more often than before announces a compaction
        (a spinner comes and goes, so its count follows the screen both ways)."""
        for words in present.changed(COMPACTION_STARTED):
            count = present.count(words)
            if count > self._accounted[words] and not resized:
                self._starts += 1
                self._redraw = False
            self._accounted[words] = count

    def _new_by_identity(self, match: _Match, present: _Present) -> bool:
        """Whether a loss marker the row logic finds new is a loss not yet accounted for:
        never in a redraw after a resize or a resumed session's replay; else when its words
        are on the screen and in the scrollback more often than accounted, or (compaction)
        when a compaction-started cue came since the last one."""
        words = (match.kind, match.text)
        if self._redraw or self._replaying:
            return False
        started = match.kind == COMPACTION and self._starts > self._credited.get(words, 0)
        if match.kind == COMPACTION:
            self._credited[words] = self._starts  # each notice answers a start once
        if present.count(words) > self._accounted[words]:
            self._accounted[words] += 1
            return True
        return started

    def _screen_state(self) -> str | None:
        if self.visible("busy"):
            return "busy"
        if self.visible("prompt_ready"):
            return "waiting"
        return None

    def _rebind_moved(self, kept: Counter[tuple[str, str, str]]) -> None:
        """Keep the key of a loss marker that only moved (scrolling changes the row above it).

        Only markers that cannot have scrolled off the top are candidates: a row
        whose key is new takes the key of a vanished one with the same text.
        """
        current = Counter(m.key for row in self._row_matches for m in row)
        orphans = [
            key
            for key, count in kept.items()
            if key[0] in LOSS_KINDS
            for _ in range(count - current.get(key, 0))
        ]
        for row in self._row_matches:
            for index, match in enumerate(row):
                if match.kind not in LOSS_KINDS or match.key in kept:
                    continue
                for key in orphans:
                    if key[:2] == match.key[:2]:
                        orphans.remove(key)
                        row[index] = replace(match, key=key)
                        break

    def _history_counts(self, emulator: Emulator) -> Counter[tuple[str, str]]:
        """The loss markers and compaction-started cues in the scrollback, by their words.

        What a row's text holds is remembered by the text: a look reads the whole
        scrollback again, and its rows rarely change between looks (the captures
        workload: most of the look's time was the patterns on the same rows)."""
        found: Counter[tuple[str, str]] = Counter()
        text_of = getattr(emulator, "history_text", None)
        if text_of is None:  # a backend without plain scrollback text: join the spans

            def text_of(index: int) -> str:
                return "".join(span.text for span in emulator.history_row(index))

        known = self._history_words
        if len(known) > HISTORY_WORDS_KEPT:
            known.clear()
        for index in range(emulator.history_size):
            text = text_of(index)
            words = known.get(text)
            if words is None:
                words = known[text] = self._counted_words(text)
            for one in words:
                found[one] += 1
        return found

    def _counted_words(self, text: str) -> tuple[tuple[str, str], ...]:
        """The counted markers' words in one row of text: the first hit of each kind."""
        if not text.strip() or not self._markers.may_match(text):
            return ()
        words = []
        for kind, patterns in self._rules:
            if kind not in _COUNTED:
                continue
            for pattern in patterns:
                hit = pattern.search(text)
                if hit is not None:
                    words.append((kind, hit.group(0).strip()))
                    break
        return tuple(words)

    def _context_above(self, y: int, emulator: Emulator) -> str:
        for above in range(y - 1, -1, -1):
            text = self._texts[above].strip()
            if text and not _BLANK.match(text):
                return text
        size = getattr(emulator, "history_size", 0)
        for index in range(size - 1, max(size - 50, 0) - 1, -1):
            text = "".join(span.text for span in emulator.history_row(index)).strip()
            if text and not _BLANK.match(text):
                return text
        return ""

    def _match_row(self, y: int, emulator: Emulator) -> list[_Match]:
        text = self._texts[y]
        if not text.strip() or not self._markers.may_match(text):
            return []
        found = []
        for kind, patterns in self._rules:
            for index, pattern in enumerate(patterns):
                hit = pattern.search(text)
                if hit is None:
                    continue
                matched = hit.group(0).strip()
                groups = hit.groupdict()
                percent = None
                if kind in _PERCENT_KINDS and groups.get("percent"):
                    percent = int(groups["percent"])
                context = self._context_above(y, emulator) if kind in LOSS_KINDS else ""
                trigger = None
                if "auto" in pattern.groupindex:  # the marker itself says which it was
                    trigger = AUTO if groups.get("auto") else MANUAL
                for scheduled in SCHEDULED_TRIGGERS:  # a group named for the trigger
                    if groups.get(scheduled):
                        trigger = scheduled
                found.append(
                    _Match(
                        kind=kind,
                        channel=f"re{index}",
                        text=matched,
                        key=(kind, matched, context),
                        percent=percent,
                        session=groups.get("session"),
                        trigger=trigger,
                    )
                )
                break  # one match per kind per row
        return found

    def _new_match(self, match: _Match, now: float, *, again: bool) -> Observation | None:
        """``again``: another row with this key is still on the screen."""
        details = {"marker": match.text, "channel": match.channel}
        if match.kind in LOSS_KINDS:
            if self._replaying:
                return None  # history of a resumed session
            if again:
                if self._reported_at.get(match.key) == self._activity:
                    return None  # a stale copy left by a redraw, not a new marker
            elif self._seen_losses.get(match.key) == self._activity:
                return None  # a redraw of a marker already reported
            return Observation(match.kind, SCREEN, now, trigger=match.trigger, details=details)
        if match.kind in _PERCENT_KINDS:
            if match.percent is None or self._percent.get(match.kind) == match.percent:
                return None
            self._percent[match.kind] = match.percent
            return Observation(
                match.kind, SCREEN, now, details={**details, "percent": match.percent}
            )
        if match.kind in _STATE_KINDS:
            return None  # reported as agent_state transitions
        if match.session:
            details["session"] = match.session
        return Observation(match.kind, SCREEN, now, details=details)


_COUNTED = (*LOSS_KINDS, COMPACTION_STARTED)
HISTORY_WORDS_KEPT = 20_000  # texts of scrollback rows remembered (4x a 5,000-row scrollback)


class _Present:
    """How often each marker's words are on the screen and in the scrollback, for one look.

    The scrollback is read only for words whose count on the screen changed since the
    last look (or all of them after a resize), and once per look.
    """

    def __init__(
        self,
        detector: ScreenDetector,
        emulator: Emulator,
        matches: list[_Match],
        *,
        everything: bool,
    ) -> None:
        self._detector = detector
        self._emulator = emulator
        screen = Counter((m.kind, m.text) for m in matches if m.kind in _COUNTED)
        before = detector._on_screen
        detector._on_screen = screen
        words = set(screen) | set(before)
        if everything:
            words |= set(detector._accounted)
        self._changed = {w for w in words if everything or screen[w] != before[w]}
        self._screen = screen
        self.known: dict[tuple[str, str], int] = {}
        self._history: Counter[tuple[str, str]] | None = None

    def changed(self, kind: str) -> list[tuple[str, str]]:
        return sorted(w for w in self._changed if w[0] == kind)

    def count(self, words: tuple[str, str]) -> int:
        if words not in self.known:
            self.known[words] = self._screen[words] + self._in_history()[words]
        return self.known[words]

    def _in_history(self) -> Counter[tuple[str, str]]:
        if self._history is None:
            self._history = self._detector._history_counts(self._emulator)
        return self._history
