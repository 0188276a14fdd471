"""The Progress tab: where the agent says it is, and whether the disk agrees.

Shows the phase, the cursor, the artifacts (from the tail of
``artifacts.jsonl``, never the whole file) and the cursor invariant in colour
with its discrepancy in words and numbers, so a person sees at a glance when
the agent claims work that is not on disk or is batching its updates.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from rich.cells import cell_len
from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from supervisor.errors import TetherError
from supervisor.rehydrate.evidence_section import ClaimCheck, check_claims
from supervisor.shown import shown, shown_line
from supervisor.store import invariant, notes
from supervisor.store.invariant import InvariantResult
from supervisor.store.tether_dir import Progress, TetherDir
from widgets.side_pane.serial_reads import NewestWins, SerialReads
from widgets.side_pane.store_changed import StoreChanged
from widgets.widget_message import WidgetMessage

TITLES = {
    invariant.OK: "Invariant holds",
    invariant.CURSOR_AHEAD: "Invariant violated: cursor ahead of the artifacts",
    invariant.CURSOR_BEHIND: "Invariant violated: cursor behind the artifacts",
    invariant.BATCHING: "Batching: progress is updated late",
    invariant.BAD_PROGRESS: "progress.json cannot be read",
    invariant.BAD_ARTIFACT: "artifacts.jsonl has a bad last record",
}


class ProgressPane(Static):
    """Phase, cursor, artifacts and the invariant verdict, refreshed when either file changes."""

    DEFAULT_CSS = """
    ProgressPane { height: auto; padding: 0 1; }
    """

    result: reactive[InvariantResult | None] = reactive(None, init=False, always_update=True)
    # Done items claiming a verification, checked against the ledger (None: no ledger).
    # Set every CLAIMS_EVERY_S, mostly to what it was: watch_claims repaints what changed
    # (a repaint here made the compositor lay out the whole screen, idle or not).
    claims: reactive[list[ClaimCheck] | None] = reactive(
        None, init=False, always_update=True, repaint=False
    )
    CLAIMS_EVERY_S = 5.0  # the checkout changes with files tether does not watch

    @dataclass
    class InvariantChanged(WidgetMessage["ProgressPane"]):
        """The verdict changed kind (e.g. from ok to cursor-ahead); ``result`` has the words."""

        result: InvariantResult

    def __init__(self, tether: TetherDir, **kwargs) -> None:
        super().__init__("", **kwargs)
        self.tether = tether
        self._progress: Progress | None = None
        self._missing: str | None = None
        self._shown: Text | None = None
        self._reads = SerialReads(self, "progress-read")
        self._claims = NewestWins()

    @property
    def reading(self) -> bool:
        """A read of the files or a check of the claims is under way: what the pane shows
        may be about to change."""
        return self._reads.pending or self._claims.pending

    def on_mount(self) -> None:
        self.reload()
        self.check_claims()
        self.set_interval(self.CLAIMS_EVERY_S, self.check_claims)

    def on_store_changed(self, message: StoreChanged) -> None:
        if message.path in (self.tether.progress, self.tether.artifacts, self.tether.root):
            self.reload()
        if message.path in (self.tether.notes, self.tether.root / "ledger.jsonl", self.tether.root):
            self.check_claims()

    def check_claims(self) -> None:
        """Check the Done claims on a worker thread: it reads the ledger and asks git."""
        job = functools.partial(self._claims_worker, self._claims.ask())
        self.run_worker(job, thread=True, exclusive=True, group="claims")

    def _claims_worker(self, asked: int) -> None:
        try:
            document = notes.Document.parse(self.tether.read_notes())
            done_section, phase = document.find("Done"), document.find("Phase")
            claims = notes.section_items(done_section.body) if done_section else []
            summary = notes.strip_comments(phase.body).strip() if phase else ""
            if summary:  # the agent's rehydration summary may claim a pass too
                claims.append("Phase: " + summary.split("\n")[0])
            found = check_claims(self.tether.root, self.tether.work_dir, claims)
        except Exception:  # a missing notes.md or a broken ledger: nothing to check
            found = None
        self.app.call_from_thread(self._set_claims, found, asked)

    def _set_claims(self, found: list[ClaimCheck] | None, asked: int) -> None:
        """On the loop: the ``asked``-th check's findings, unless a newer one's are shown."""
        if not self._claims.lands(asked):
            return  # a check cancelled by a newer one (a thread runs on) ended after it
        # A method, not setattr: Textual reads a callback's signature to call it, and a
        # builtin's is parsed from its text at every call (a method's is remembered).
        self.claims = found

    def watch_claims(self, claims: list[ClaimCheck] | None) -> None:
        if self.result is not None:
            self._show(render_progress(self._progress, self.result, claims))

    def reload(self) -> None:
        """Re-read progress and the artifacts' tail (small, bounded reads) on a worker thread."""
        self._reads.read(self._read, self._apply)

    def _read(self) -> _Read:
        """On a worker thread: the files, and the invariant's verdict over them."""
        if not self.tether.exists():
            return _Read(None, None, f"no .tether/ in {self.tether.work_dir} yet")
        try:
            progress: Progress | None = self.tether.read_progress()
        except TetherError:
            progress = None  # the verdict below names the file and the fix
        return _Read(progress, invariant.check(self.tether), None)

    def _apply(self, read: _Read) -> None:
        """On the loop: show what a worker read."""
        self._progress = read.progress
        self._missing = read.missing
        if read.result is None:
            self._show(Text(read.missing or "", style="italic"))
            return
        before = self.result
        self.result = read.result
        if before is None or before.kind != read.result.kind:
            self.post_message(self.InvariantChanged(self, read.result))

    def watch_result(self, result: InvariantResult | None) -> None:
        if result is not None:
            self._show(render_progress(self._progress, result, self.claims))

    def _show(self, text: Text) -> None:
        """Repaint only what changed: a layout of the whole screen only when the height may."""
        shown, self._shown = self._shown, text
        if shown == text and shown.style == text.style:
            return  # e.g. progress.json rewritten with the same values
        self.update(text, layout=not _same_height(shown, text, self.content_region.width))


@dataclass(frozen=True)
class _Read:
    """What one read found: progress.json, the verdict, or why there is nothing to read."""

    progress: Progress | None
    result: InvariantResult | None
    missing: str | None


def _same_height(old: Text | None, new: Text, width: int) -> bool:
    """Both texts take the same number of rows at ``width`` (no line wraps in either)."""
    if old is None or width <= 0:
        return False
    old_lines, new_lines = old.plain.split("\n"), new.plain.split("\n")
    return len(old_lines) == len(new_lines) and all(
        cell_len(line) <= width for line in old_lines + new_lines
    )


def render_progress(
    progress: Progress | None, result: InvariantResult, claims: list[ClaimCheck] | None = None
) -> Text:
    """The pane's text: a few labelled numbers, the verdict in its colour, then the Done
    claims of a verification with whether a current passing run in the ledger backs them."""
    text = Text()

    def row(label: str, value: str, style: str = "") -> None:
        text.append(f"{label:<10}", style="bold")
        text.append(shown_line(value) + "\n", style=style)  # progress.json's own words

    if progress is not None:
        row("Phase", progress.phase or "—")
        off = result.kind in (invariant.CURSOR_AHEAD, invariant.CURSOR_BEHIND)
        row("Cursor", str(progress.cursor), "bold red" if off else "")
        row("Updated", progress.updated_at or "never", "" if progress.updated_at else "yellow")
    else:
        row("Phase", "?", "dim")
        row("Cursor", "?", "dim")
    if result.last_index is None:
        row("Artifacts", "none yet")
    else:
        row("Artifacts", f"{result.last_index + 1} (last index {result.last_index})")
        if result.last_artifact_at:
            row("Last one", result.last_artifact_at)
    text.append("\n")
    if result.ok:
        style, mark = "bold green", "✓"
    elif result.kind == invariant.BATCHING:
        style, mark = "bold yellow", "⚠"
    else:
        style, mark = "bold red", "✗"
    text.append(f"{mark} {shown_line(TITLES.get(result.kind, result.kind))}\n", style=style)
    text.append(shown(result.message) + "\n", style=style.replace("bold ", ""))
    if result.kind in (invariant.CURSOR_AHEAD, invariant.CURSOR_BEHIND, invariant.BAD_PROGRESS):
        text.append(
            f"Disk wins: `tether check --fix` sets the cursor to {result.expected_cursor}.\n",
            style="italic",
        )
    elif result.kind == invariant.BATCHING:
        text.append("The agent should update progress.json after each artifact.\n", style="italic")
    for warning in result.warnings:
        text.append(f"⚠ {shown_line(warning)}\n", style="yellow")
    if claims:
        text.append("\nClaims of a pass (checked against the ledger)\n", style="bold")
        for claim in claims:
            item = shown_line(" ".join(claim.item.split()))[:120]
            if claim.unverified:
                text.append(f"✗ unverified: {item}\n", style="bold yellow")
                kinds = "/".join(claim.unverified)
                text.append(f"  no current passing {kinds} run on this checkout\n", style="yellow")
            else:
                text.append(f"✓ verified: {item}\n", style="green")
    text.rstrip()
    return text
