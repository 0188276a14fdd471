"""Sections of `notes.md` and `task.md`, edited without disturbing anything else.

A person and the agent both write these files by hand, so the parser is a
partition, not an interpretation: the text is cut at level-2 ATX headings
(``## Title``) outside fenced code blocks, and rendering concatenates the
pieces again. Whatever was not edited comes back byte for byte, including
free text before the first heading, unknown sections and trailing spaces.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

# Short names the CLI and the agent use, mapped to the section titles of the template.
SECTION_ALIASES: dict[str, str] = {
    "phase": "Phase",
    "decision": "Decisions",
    "decisions": "Decisions",
    "rejected": "Rejected approaches",
    "done": "Done",
    "unproven": "Unproven",
    "next": "Next step",
    "goal": "Goal",
    "criteria": "Success criteria",
    "constraint": "Constraints",
    "constraints": "Constraints",
}

# Sections whose body is one current value, replaced rather than appended to.
# "Next step" is one item: a list of old next steps would mislead a rehydrated agent.
REPLACED_SECTIONS = frozenset({"phase", "next step"})

DECISIONS = "Decisions"
PHASE = "Phase"
_KNOWN_TITLE_KEYS = frozenset(" ".join(t.lower().split()) for t in SECTION_ALIASES.values())

# The title's optional closing "#"s are taken off by _closing_hashes: a regex doing it
# (`(.*?)(?: +#+)? *$`) backtracks quadratically over a heading line of many spaces.
_HEADING = re.compile(r"^ {0,3}## +(.*)$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_BULLET = re.compile(r"^ {0,3}(?:[-*+]|\d{1,9}[.)]) +(.*)$")
_STAMP = re.compile(r"^\[(\d{4}-\d\d-\d\d[T ][0-9:.]+Z?)\] +(.*)$", re.S)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def canonical_title(name: str) -> str:
    """The section title a short name stands for (``decision`` → ``Decisions``)."""
    key = " ".join(name.strip().lower().replace("_", " ").replace("-", " ").split())
    return SECTION_ALIASES.get(key, name.strip())


def _key(title: str) -> str:
    return " ".join(title.lower().split())


# The names `tether note` offers, in the order of the notes template.
NOTE_SECTIONS = ("phase", "decision", "rejected", "done", "unproven", "next")


def unknown_section(notes_text: str, name: str) -> str | None:
    """Why ``tether note NAME`` must be refused, or None when NAME is a section.

    A typo (``decison``) would otherwise create a new section nobody reads, and a
    decision noted there is never pinned. Known are the short names and their
    titles, and every section that already exists in notes.md.
    """
    title = canonical_title(name)
    existing = Document.parse(notes_text).titles()
    known_keys = {_key(t) for t in SECTION_ALIASES.values()} | {_key(t) for t in existing}
    if name.strip().lower() in SECTION_ALIASES or _key(title) in known_keys:
        return None
    offered = list(NOTE_SECTIONS) + [t for t in existing if _key(t) not in _KNOWN_TITLE_KEYS]
    candidates = {**{key: key for key in SECTION_ALIASES}, **{_key(t): t for t in existing}}
    close = difflib.get_close_matches(_key(name), list(candidates), n=1, cutoff=0.6)
    hint = f"did you mean {candidates[close[0]]!r}? " if close else ""
    return (
        f"unknown notes section {name.strip()!r}: {hint}known sections are "
        f"{', '.join(offered)} (a new section: add its '## ' heading to notes.md first)"
    )


@dataclass(slots=True)
class Section:
    """One heading and the raw text under it, newlines included.

    ``heading`` is the heading line exactly as written (with its line ending),
    or ``""`` for the free text before the first heading.
    """

    heading: str
    body: str

    @property
    def title(self) -> str:
        match = _HEADING.match(self.heading.rstrip("\r\n"))
        return _closing_hashes(match.group(1)).strip() if match else ""

    def render(self) -> str:
        return self.heading + self.body


@dataclass(slots=True)
class Document:
    """A Markdown file as a list of sections; ``render()`` gives the text back."""

    sections: list[Section] = field(default_factory=list)

    @classmethod
    def parse(cls, text: str) -> Document:
        """Split ``text`` into sections, in time linear in its length.

        Each body is gathered as a list of lines and joined once: appending to
        ``section.body`` line by line copied the body every time (a 4 MB notes.md
        took 13 s to parse).
        """
        sections = [Section("", "")]
        bodies: list[list[str]] = [[]]
        fence: str | None = None
        for line in _lines(text):
            bare = line.rstrip("\r\n")
            fence_match = _FENCE.match(bare)
            if fence is None and fence_match:
                fence = fence_match.group(1)
            elif fence is not None and fence_match:
                marker = fence_match.group(1)
                closes = marker[0] == fence[0] and len(marker) >= len(fence)
                if closes and not bare.strip()[len(marker) :].strip():
                    fence = None
            elif fence is None and _HEADING.match(bare):
                sections.append(Section(line, ""))
                bodies.append([])
                continue
            bodies[-1].append(line)
        for section, lines in zip(sections, bodies, strict=True):
            section.body = "".join(lines)
        return cls(sections)

    def render(self) -> str:
        return "".join(section.render() for section in self.sections)

    def find(self, title: str) -> Section | None:
        """The first section titled ``title`` (case and spacing ignored)."""
        wanted = _key(canonical_title(title))
        for section in self.sections[1:]:
            if _key(section.title) == wanted:
                return section
        return None

    def titles(self) -> list[str]:
        return [section.title for section in self.sections[1:]]

    def ensure(self, title: str) -> Section:
        """The section titled ``title``, appended at the end if it does not exist."""
        section = self.find(title)
        if section is not None:
            return section
        last = self.sections[-1]
        text = last.render()
        if text and not text.endswith("\n"):
            last.body += "\n"
        if text.strip() and not text.endswith("\n\n"):
            last.body += "\n"
        section = Section(f"## {canonical_title(title)}\n", "\n")
        self.sections.append(section)
        return section

    def append_item(self, title: str, text: str) -> Section:
        """Add ``- text`` after the last non-blank line of a section; nothing else moves."""
        section = self.ensure(title)
        if not section.heading.endswith("\n"):
            section.heading += "\n"
        section.body = _insert_item(section.body, format_item(text))
        return section

    def replace_body(self, title: str, text: str) -> Section:
        """Make ``text`` the whole body of a section, keeping one blank line before the next."""
        section = self.ensure(title)
        if not section.heading.endswith("\n"):
            section.heading += "\n"
        is_last = section is self.sections[-1]
        body = "\n" + clean_text(text).strip("\n") + "\n"
        section.body = body if is_last else body + "\n"
        return section


def clean_text(text: str) -> str:
    """Text without control characters other than newline and tab."""
    return _CONTROL.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))


def format_item(text: str) -> str:
    """A list item: ``- first line`` and continuation lines indented, so it stays one item."""
    lines = [line.rstrip() for line in clean_text(text).strip().split("\n")]
    lines = [line for line in lines if line] or ["(empty)"]
    return "- " + "\n  ".join(lines) + "\n"


def _lines(text: str) -> list[str]:
    """Lines with their ``\n``; only ``\n`` splits, so no other character is reinterpreted."""
    lines = [line + "\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    return lines if lines[-1] else lines[:-1]


def _insert_item(body: str, item: str) -> str:
    lines = _lines(body)
    end = len(lines)
    while end > 0 and not lines[end - 1].strip():
        end -= 1
    head, tail = lines[:end], lines[end:]
    if head and not head[-1].endswith("\n"):
        head[-1] += "\n"
    if not head:
        # An empty section: a blank line between heading and list, one after it.
        head = ["\n"]
        tail = tail[1:] if len(tail) > 1 else tail
    return "".join(head) + item + "".join(tail)


def _closing_hashes(title: str) -> str:
    """A heading's text without its optional closing sequence (`## Done ##`)."""
    bare = title.rstrip(" ")
    stripped = bare.rstrip("#")
    if stripped != bare and (not stripped or stripped.endswith(" ")):
        return stripped.rstrip(" ")
    return bare


def strip_comments(text: str) -> str:
    """``text`` without HTML comments (template hints), in linear time.

    An unclosed ``<!--`` runs to the end, as in Markdown; the regex it replaces
    (``<!--.*?-->``) scanned to the end again for each of many unclosed ones.
    """
    if "<!--" not in text:
        return text
    out: list[str] = []
    position = 0
    while (start := text.find("<!--", position)) >= 0:
        out.append(text[position:start])
        end = text.find("-->", start + 4)
        if end < 0:
            return "".join(out)
        position = end + 3
    out.append(text[position:])
    return "".join(out)


def section_items(body: str) -> list[str]:
    """The entries of a section body: list items with their continuation lines, or paragraphs.

    HTML comments (template hints) are skipped; text is returned as written,
    without the bullet and with continuation indentation removed.
    """
    body = strip_comments(body)
    items: list[list[str]] = []
    in_item = False
    for raw in body.split("\n"):
        line = raw.rstrip()
        bullet = _BULLET.match(line)
        if bullet:
            items.append([bullet.group(1)])
            in_item = True
        elif not line.strip():
            in_item = False
        elif in_item:  # a continuation line, indented or lazy
            items[-1].append(line.strip())
        else:
            items.append([line.strip()])
            in_item = True
    return ["\n".join(parts) for parts in items if "".join(parts).strip()]


def stamped_item(text: str, at: str) -> str:
    """The text of a decision item: ``[2026-05-01T12:00:00Z] text``."""
    return f"[{at}] {text.strip()}"


def split_stamp(item: str) -> tuple[str | None, str]:
    """``(timestamp, text)`` of a stamped item; ``(None, item)`` when it has no stamp."""
    match = _STAMP.match(item)
    return (match.group(1), match.group(2)) if match else (None, item)


def phase(notes_text: str) -> str:
    """The body of the ``## Phase`` section, stripped; "" without one.

    The agent's rehydration summary goes there (``tether note phase``), so a change
    of it acknowledges a payload.
    """
    return phase_of(Document.parse(notes_text))


def phase_of(document: Document) -> str:
    """:func:`phase` of notes already parsed (megabytes parse slowly)."""
    section = document.find(PHASE)
    return section.body.strip() if section is not None else ""


def pinned_decisions(notes_text: str) -> list[str]:
    """The pinned decisions of a notes file, verbatim, without bullet and timestamp.

    These go into every payload as they are; the timestamp is left out so the
    loss audit does not mistake it for a key term of the decision.
    """
    return decisions_of(Document.parse(notes_text))


def decisions_of(document: Document) -> list[str]:
    """:func:`pinned_decisions` of a document already parsed."""
    section = document.find(DECISIONS)
    if section is None:
        return []
    return [split_stamp(item)[1] for item in section_items(section.body)]


def add_decision(notes_text: str, text: str, at: str) -> tuple[str, bool]:
    """Notes text with a stamped decision appended; ``False`` if the decision is already there.

    Deduplicated by text because the same ``DECISION:`` line is seen again on
    every redraw of the agent's screen.
    """
    text = " ".join(clean_text(text).split())
    if text in pinned_decisions(notes_text):
        return notes_text, False
    document = Document.parse(notes_text)
    document.append_item(DECISIONS, stamped_item(text, at))
    return document.render(), True


def apply_note(notes_text: str, section: str, text: str, at: str) -> str:
    """Notes text after ``tether note SECTION TEXT``.

    ``phase`` and ``next`` replace their section's body (one current value);
    ``decision`` appends a stamped, pinned item; any other name appends an item,
    creating the section at the end when it does not exist.
    """
    title = canonical_title(section)
    document = Document.parse(notes_text)
    if _key(title) in REPLACED_SECTIONS:
        document.replace_body(title, text)
    elif _key(title) == _key(DECISIONS):
        return add_decision(notes_text, text, at)[0]
    else:
        document.append_item(title, text)
    return document.render()
