"""The Checkpoints tab: the history of snapshots, one previewed, diffs, and restore.

A checkpoint file never changes once written, so each one is read once for
its time and reason and then remembered; only the newest :data:`MAX_LISTED`
are listed, so thousands of checkpoints cost no more than a few hundred.
Restoring asks first, and the engine checkpoints the current state before it
writes, so a restore can itself be undone from this same list.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Button, Label, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from supervisor.errors import TetherError
from supervisor.shown import shown, shown_line
from supervisor.store import checkpoints
from supervisor.store.checkpoints import Checkpoint
from supervisor.store.tether_dir import TetherDir
from widgets.side_pane.serial_reads import NewestWins, SerialReads
from widgets.side_pane.store_changed import StoreChanged
from widgets.widget_message import WidgetMessage
from widgets.yes_no import YesNo

MAX_LISTED = 200
# A preview shows this many lines of each file: notes.md can be megabytes, and a Static
# of 60,000 lines took the loop 0.6 s to build (4 MB), seconds to lay out. `tether show`.
PREVIEW_LINES = 400


class ConfirmRestore(YesNo):
    """Restoring overwrites task.md, notes.md and progress.json: ask, and say it is undoable."""

    DEFAULT_CSS = """
    ConfirmRestore { align: center middle; }
    ConfirmRestore > Vertical {
        width: 64; max-width: 100%; height: auto; padding: 1 2; border: thick $warning;
        background: $surface;
    }
    ConfirmRestore Label { width: 1fr; }
    ConfirmRestore Horizontal { height: auto; margin: 1 0 0 0; }
    ConfirmRestore Button { margin: 0 1 0 0; }
    """
    BINDINGS = [("y", "answer(True)", "Restore"), ("n,escape", "answer(False)", "Cancel")]

    def __init__(self, seq: int) -> None:
        super().__init__(
            f"Restore checkpoint #{seq}? Its task.md, notes.md and progress.json replace "
            "the current ones. The current state is checkpointed first, so this can be undone.",
            yes="Restore",
            no="Cancel",
        )
        self.seq = seq


class CheckpointList(Widget):
    """History list; the highlighted checkpoint is previewed, diffed or restored."""

    DEFAULT_CSS = """
    CheckpointList { layout: vertical; height: 1fr; }
    CheckpointList #cp-list { height: 40%; min-height: 4; }
    CheckpointList #cp-actions {
        layout: grid; grid-size: 4; grid-gutter: 0 1; height: auto;
        grid-columns: auto auto auto auto;
    }
    CheckpointList #cp-actions.-narrow { grid-size: 2; grid-columns: 1fr 1fr; }
    CheckpointList #cp-actions Button { min-width: 0; width: auto; }
    CheckpointList #cp-actions.-narrow Button { width: 100%; }
    CheckpointList #cp-title { height: 1; text-style: bold; background: $panel; padding: 0 1; }
    CheckpointList #cp-scroll { height: 1fr; }
    CheckpointList #cp-view { padding: 0 1; }
    """
    BINDINGS = [
        Binding("l", "diff_live", "Diff vs live"),
        Binding("m", "mark", "Mark for diff"),
        Binding("d", "diff_marked", "Diff vs mark"),
        Binding("r", "restore", "Restore"),
    ]

    marked: reactive[int | None] = reactive(None)
    highlighted: reactive[int | None] = reactive(None)

    @dataclass
    class Restored(WidgetMessage["CheckpointList"]):
        """Checkpoint ``seq`` is live again; ``safety_seq`` holds the state it replaced."""

        seq: int
        safety_seq: int | None

    @dataclass
    class Shown(WidgetMessage["CheckpointList"]):
        """The view now shows ``what``: ``"preview"`` or ``"diff"`` of ``seq`` (and ``other``)."""

        what: str
        seq: int
        other: int | None = None

    def __init__(self, tether: TetherDir, **kwargs) -> None:
        super().__init__(**kwargs)
        self.tether = tether
        self._summaries: dict[int, str] = {}
        self._seqs: list[int] = []
        self._previewed: int | None = None  # what the view shows now, if a preview
        self._reads = SerialReads(self, "checkpoints-read")
        self._views = NewestWins()

    @property
    def reading(self) -> bool:
        """The list or the view is being read: what the tab shows may be about to change."""
        return self._reads.pending or self._views.pending

    def compose(self) -> ComposeResult:
        yield OptionList(id="cp-list")
        with Horizontal(id="cp-actions"):
            yield Button("Diff live", id="cp-diff-live", compact=True)
            yield Button("Mark", id="cp-mark", compact=True)
            yield Button("Diff mark", id="cp-diff-mark", compact=True)
            yield Button("Restore…", id="cp-restore", compact=True, variant="warning")
        yield Label("", id="cp-title")
        with VerticalScroll(id="cp-scroll"):
            yield Static("", id="cp-view")

    @property
    def options(self) -> OptionList:
        return self.query_one("#cp-list", OptionList)

    def on_mount(self) -> None:
        self.reload()

    def on_show(self) -> None:
        """The tab opens on the newest checkpoint: the list filled while it was hidden kept
        its highlight on whichever was newest then."""
        self.reload(then=self._highlight_newest)

    def _highlight_newest(self) -> None:
        if self._seqs and self.highlighted != self._seqs[0]:
            self.options.highlighted = 0

    def on_resize(self) -> None:
        self._fit_actions()

    def _fit_actions(self) -> None:
        """The buttons in one row where they fit whole, else in two (never cut)."""
        actions = self.query_one("#cp-actions")
        wanted = sum(len(str(b.label)) + 3 for b in actions.query(Button))
        actions.set_class(self.size.width < wanted, "-narrow")

    def focus_list(self) -> None:
        self.options.focus()

    def on_store_changed(self, message: StoreChanged) -> None:
        path = message.path
        if path in (self.tether.root, self.tether.checkpoints) or (
            path.parent == self.tether.checkpoints and path.suffix == ".json"
        ):
            self.reload()

    # -- the list ----------------------------------------------------------------------------

    def reload(self, then: Callable[[], None] | None = None) -> None:
        """List the newest checkpoints, newest first, keeping the highlight where it was: the
        folder is listed and the new checkpoints read on a worker thread, then ``then``."""
        known = set(self._summaries)
        self._reads.read(
            functools.partial(self._read_list, known), functools.partial(self._listed, then)
        )

    def _read_list(self, known: set[int]) -> tuple[list[int], dict[int, str | None]]:
        """On a worker thread: the newest seqs, and the summaries of those not ``known``
        (``None``: unreadable, perhaps mid-write, so not remembered)."""
        seqs = checkpoints.list_seqs(self.tether)[-MAX_LISTED:][::-1]
        found: dict[int, str | None] = {}
        for seq in seqs:
            if seq in known:
                continue
            try:
                point = checkpoints.load(self.tether, seq)
            except TetherError:
                found[seq] = None
                continue
            when = point.at.replace("T", " ")[:19]
            found[seq] = shown_line(f"#{seq:<4} {when}  {point.reason}")
        return seqs, found

    def _summary(self, seq: int, found: dict[int, str | None]) -> str:
        return self._summaries.get(seq) or found.get(seq) or f"#{seq}  (unreadable)"

    def _listed(
        self, then: Callable[[], None] | None, read: tuple[list[int], dict[int, str | None]]
    ) -> None:
        """On the loop: show the list a worker read."""
        seqs, found = read
        self._summaries.update({seq: line for seq, line in found.items() if line is not None})
        if seqs != self._seqs:
            self._show_list(seqs, found)
        if then is not None:
            then()

    def _show_list(self, seqs: list[int], found: dict[int, str | None]) -> None:
        self._seqs = seqs
        options = self.options
        keep = self.highlighted
        options.clear_options()
        if not seqs:
            options.add_option(Option("no checkpoints yet (F8 or `tether checkpoint`)", id="none"))
            options.disable_option("none")
            self.highlighted = None
            return
        options.add_options([Option(Text(self._summary(s, found)), id=str(s)) for s in seqs])
        options.highlighted = seqs.index(keep) if keep in seqs else 0

    @on(OptionList.OptionHighlighted, "#cp-list")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        option_id = event.option.id
        if option_id and option_id.isdigit():
            self.highlighted = int(option_id)
            if self.highlighted != self._previewed:  # a new checkpoint moved it down: same
                self.preview(self.highlighted)

    def watch_marked(self, marked: int | None) -> None:
        if self.children:
            label = "Diff mark" if marked is None else f"Diff #{marked}"
            self.query_one("#cp-diff-mark", Button).label = label
            self._fit_actions()

    # -- what the view shows -----------------------------------------------------------------

    def _show(self, title: str, body: Text) -> None:
        self._previewed = None
        self.query_one("#cp-title", Label).update(Text(shown_line(title)))
        self.query_one("#cp-view", Static).update(body)
        self.query_one("#cp-scroll", VerticalScroll).scroll_home(animate=False)

    def preview(self, seq: int) -> None:
        """Show checkpoint ``seq``: read and rendered on a worker thread (it can be megabytes)."""
        self._previewed = seq  # asked for: a highlight that stays on it asks no more
        self._build_view(functools.partial(self._preview_of, seq))

    def diff(self, seq: int, other: int | None) -> None:
        """Show what changed from checkpoint ``seq`` to ``other`` (``None``: the live state),
        computed on a worker thread (200,000 headings took minutes)."""
        self._previewed = None
        self._build_view(functools.partial(self._diff_of, seq, other))

    def _build_view(self, build: Callable[[], _View]) -> None:
        """The newest request wins (``exclusive``): an older view is never shown after it."""
        self.run_worker(
            functools.partial(self._build_off_loop, build, self._views.ask()),
            thread=True,
            exclusive=True,
            group="checkpoint-view",
        )

    def _build_off_loop(self, build: Callable[[], _View], asked: int) -> None:
        view = build()
        if get_current_worker().is_cancelled:
            return
        try:
            self.app.call_from_thread(self._put, view, asked)
        except RuntimeError:  # the app has stopped
            pass

    def _put(self, view: _View, asked: int) -> None:
        """On the loop: the view the ``asked``-th request built, unless a newer one is shown."""
        if not self._views.lands(asked):
            return  # cancelled by a newer request after its last look at the flag
        self._show(view.title, view.body)
        self._previewed = view.previewed
        if view.shown is not None:
            what, seq, other = view.shown
            self.post_message(self.Shown(self, what, seq, other))

    def _preview_of(self, seq: int) -> _View:
        """On a worker thread."""
        try:
            point = checkpoints.load(self.tether, seq)
        except TetherError as error:
            return _View(f"checkpoint #{seq}", Text(shown(str(error)), style="red"))
        return _View(
            f"checkpoint #{seq} — {point.reason}",
            render_preview(point),
            ("preview", seq, None),
            previewed=seq,
        )

    def _diff_of(self, seq: int, other: int | None) -> _View:
        """On a worker thread."""
        try:
            old = checkpoints.load(self.tether, seq)
        except TetherError as error:
            return _View(f"checkpoint #{seq}", Text(shown(str(error)), style="red"))
        if other is None:
            try:
                new = checkpoints.live(self.tether)
            except TetherError as error:
                return _View("live state", Text(shown(str(error)), style="red"))
        else:
            try:
                loaded = checkpoints.load(self.tether, other)
            except TetherError as error:
                return _View(f"checkpoint #{other}", Text(shown(str(error)), style="red"))
            old, new = (old, loaded) if seq < other else (loaded, old)
        title = f"diff {old.label} → {new.label}"
        return _View(title, render_diff(checkpoints.diff(old, new)), ("diff", seq, other))

    # -- actions -----------------------------------------------------------------------------

    def action_diff_live(self) -> None:
        if self.highlighted is not None:
            self.diff(self.highlighted, None)

    def action_mark(self) -> None:
        self.marked = None if self.marked == self.highlighted else self.highlighted

    def action_diff_marked(self) -> None:
        if self.highlighted is None:
            return
        if self.marked is None or self.marked == self.highlighted:
            self.notify("Mark another checkpoint first (m)", severity="warning")
            return
        self.diff(self.marked, self.highlighted)

    def action_restore(self) -> None:
        seq = self.highlighted
        if seq is None:
            return

        def decided(yes: bool | None) -> None:
            if yes:
                self._restore(seq)

        self.app.push_screen(ConfirmRestore(seq), decided)

    @work(thread=True, exclusive=True, group="restore")
    def _restore(self, seq: int) -> None:
        """Restore in a thread: the safety checkpoint asks git for HEAD, which may take a while."""
        try:
            safety, _ = checkpoints.restore(self.tether, seq)
        except TetherError as error:
            failed = Text(shown(str(error)))
            self.app.call_from_thread(self._show, f"restore of #{seq} failed", failed)
            return
        self.app.call_from_thread(self._restored, seq, safety.seq)

    def _restored(self, seq: int, safety_seq: int | None) -> None:
        self.reload()
        self._show(
            f"restored #{seq}",
            Text(
                f"Checkpoint #{seq} is live again. The state it replaced is checkpoint "
                f"#{safety_seq}: restore that one to undo."
            ),
        )
        self.post_message(self.Restored(self, seq, safety_seq))

    @on(Button.Pressed, "#cp-actions Button")
    def _button(self, event: Button.Pressed) -> None:
        event.stop()
        actions = {
            "cp-diff-live": self.action_diff_live,
            "cp-mark": self.action_mark,
            "cp-diff-mark": self.action_diff_marked,
            "cp-restore": self.action_restore,
        }
        actions[event.button.id or ""]()


@dataclass(frozen=True)
class _View:
    """What the view shows, built off the loop: its title, its text, and the Shown message's
    fields when it is a preview or a diff (not an error)."""

    title: str
    body: Text
    shown: tuple[str, int, int | None] | None = None
    previewed: int | None = None


def render_preview(point: Checkpoint) -> Text:
    """One checkpoint as a person reads it: when, why, where git was, then the files.

    Every value comes from the checkpoint's file, so each is shown through
    :func:`shown` (a clone can ship checkpoints with escape sequences in them)."""
    text = Text()
    text.append(shown_line(f"{point.at}  {point.reason}") + "\n", style="bold")
    git = point.git if isinstance(point.git, dict) else None
    if git:
        head = str(git.get("head") or "no commit")[:12]
        text.append(shown_line(f"git {head}{' (dirty)' if git.get('dirty') else ''}") + "\n")
    if point.incident is not None:
        text.append(shown_line(f"incident {point.incident}") + "\n", style="yellow")
    progress = point.progress
    if progress:
        cursor, phase = progress.get("cursor"), progress.get("phase") or "—"
        text.append(shown_line(f"cursor {cursor}  phase {phase}") + "\n")
    verdict = point.invariant
    if verdict:
        style = "green" if verdict.get("ok") else "red"
        text.append(shown_line(f"invariant: {verdict.get('message', '?')}") + "\n", style=style)
    for name, body in (("task.md", point.task), ("notes.md", point.notes)):
        text.append(f"\n── {name} ──\n", style="bold cyan")
        lines = body.rstrip("\n").split("\n", PREVIEW_LINES)
        text.append(shown("\n".join(lines[:PREVIEW_LINES])) + "\n")
        if len(lines) > PREVIEW_LINES:
            more = lines[PREVIEW_LINES].count("\n") + 1
            text.append(f"… {more} more lines: `tether show {point.seq}`\n", style="italic")
    text.rstrip()
    return text


def render_diff(diff_text: str) -> Text:
    """The engine's section-by-section diff, coloured: additions green, removals red."""
    text = Text()
    for line in diff_text.rstrip("\n").split("\n"):
        bare = line.lstrip()
        if line.startswith(("---", "+++")):
            style = "bold"
        elif line.startswith("  +"):
            style = "green"
        elif line.startswith("  -"):
            style = "red"
        elif bare.startswith("@@"):
            style = "dim"
        elif line and not line.startswith(" "):
            style = "bold cyan"
        else:
            style = ""
        text.append(shown_line(line) + "\n", style=style)
    text.rstrip()
    return text
