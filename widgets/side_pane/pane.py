"""The side pane: Notes, Progress, Checkpoints and Events tabs over one `.tether/` folder.

It owns the folder's watcher and turns each file change into a
:class:`StoreChanged` message for the pane that shows that file, so the panes
never poll and never know about each other. When `.tether/` does not exist yet
(``tether run`` creates it), the pane says so and starts watching once it appears.
Whether it exists, and the watcher's start, are looked at on a worker thread.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.message import Message
from textual.widgets import Static, TabbedContent, TabPane, Tabs

from supervisor.config.layout import SIDE_PANE_WIDTH_CSS
from supervisor.shown import shown
from supervisor.store.tether_dir import TetherDir
from supervisor.store.watcher import TetherWatcher
from widgets.missed_resize import ResizeWatch
from widgets.side_pane.checkpoint_list import CheckpointList
from widgets.side_pane.events_log import EventsLog
from widgets.side_pane.notes_pane import NotesPane
from widgets.side_pane.pane_keys import PaneKeys
from widgets.side_pane.progress_pane import ProgressPane
from widgets.side_pane.serial_reads import SerialReads
from widgets.side_pane.store_changed import StoreChanged

MISSING_POLL_SECONDS = 1.0


class SidePane(PaneKeys, can_focus=True):
    """Tabs beside the terminal. Focusing the pane itself hands focus to the active tab;
    its keys (tabs, a focus cycle that stays inside) are :class:`PaneKeys`'."""

    DEFAULT_CSS = (
        f"SidePane {{ {SIDE_PANE_WIDTH_CSS} height: 1fr; border-left: tall $panel; }}"
        + """
    SidePane:focus-within { border-left: tall $accent; }
    SidePane #side-missing { display: none; height: auto; padding: 0 1; background: $warning 30%; }
    SidePane.-missing #side-missing { display: block; }
    SidePane TabbedContent { height: 1fr; }
    SidePane TabPane { padding: 0; height: 1fr; }
    """
    )

    @dataclass
    class FileChanged(Message):
        """Posted from the watcher's thread: ``path`` under `.tether/` changed."""

        path: Path

    def __init__(
        self, tether: TetherDir, *, watch: bool = True, initial: str = "notes", **kwargs
    ) -> None:
        super().__init__(**kwargs)
        self.tether = tether
        self._initial = initial
        self._watch = watch
        self._watcher: TetherWatcher | None = None
        self._watcher_lock = threading.Lock()  # a worker starts it, the loop stops it
        self._unmounted = False
        self._missing: bool | None = None  # None: not looked yet
        self._reads = SerialReads(self, "side-pane-look")

    @property
    def reading(self) -> bool:
        """The pane is looking whether `.tether/` exists: its banner may be about to change."""
        return self._reads.pending

    def compose(self) -> ComposeResult:
        yield Static(
            Text(
                shown(
                    f"No .tether/ in {self.tether.work_dir} yet: `tether run` or `tether init` "
                    "creates it, and these tabs fill in when it appears."
                )
            ),
            id="side-missing",
        )
        with TabbedContent(id="side-tabs", initial=f"tab-{self._initial}"):
            with TabPane("Notes", id="tab-notes"):
                yield NotesPane(self.tether, id="notes")
            with TabPane("Progress", id="tab-progress"):
                yield ProgressPane(self.tether, id="progress")
            with TabPane("Checkpoints", id="tab-checkpoints"):
                yield CheckpointList(self.tether, id="checkpoints")
            with TabPane("Events", id="tab-events"):
                yield EventsLog(self.tether, id="events")

    def on_mount(self) -> None:
        # The tab bar places its underline on Resize: one Textual did not send left the
        # front tab without it (see widgets.missed_resize).
        self.tabs_watch = ResizeWatch(self.query_one(TabbedContent).query_one(Tabs))
        self.tabs_watch.watch()
        self._look()

    def on_unmount(self) -> None:
        self.stop_watching()

    # -- the watcher -------------------------------------------------------------------------

    def _look(self) -> None:
        """Whether `.tether/` exists, and the watcher started if so: on a worker thread."""
        self._reads.read(self._look_off_loop, self._looked)

    def _look_off_loop(self) -> tuple[bool, str | None]:
        """On a worker thread: whether the folder exists, and why it cannot be watched."""
        if not self.tether.exists():
            return False, None
        if not self._watch or self._watcher is not None:
            return True, None
        watcher = TetherWatcher(self.tether.root, self._file_changed)
        try:
            watcher.start()
        except OSError as error:
            return True, f"cannot watch {self.tether.root}: {error}"
        with self._watcher_lock:
            keep = not self._unmounted
            if keep:
                self._watcher = watcher
        if not keep:
            watcher.stop()
        return True, None

    def _looked(self, found: tuple[bool, str | None]) -> None:
        """On the loop: show whether the folder exists; look again later while it does not."""
        exists, problem = found
        appeared = self._missing is True and exists
        self._missing = not exists
        self.set_class(not exists, "-missing")
        if problem is not None:
            self.notify(problem, severity="error")
        if not exists and self._watch:
            self.set_timer(MISSING_POLL_SECONDS, self._look)
        if appeared:
            self.post_message(self.FileChanged(self.tether.root))

    def stop_watching(self) -> None:
        with self._watcher_lock:
            self._unmounted = True
            watcher, self._watcher = self._watcher, None
        if watcher is not None:
            watcher.stop()

    def _file_changed(self, path: Path) -> None:
        """Called on the watcher's thread; ``post_message`` is thread-safe."""
        self.post_message(self.FileChanged(path))

    def on_side_pane_file_changed(self, message: FileChanged) -> None:
        """Route the change to the tab that shows the file; the message bubbles on to the app,
        which reads hook events and the invariant's files at once instead of at its next poll."""
        self.route(message.path)

    def route(self, path: Path) -> None:
        """Tell the pane that shows ``path`` that it changed (every pane for the folder)."""
        tether = self.tether
        if path == tether.root:
            self._look()  # the folder itself: made, or removed
            targets = ["#notes", "#progress", "#checkpoints", "#events"]
        elif path == tether.notes:  # the Progress tab checks the Done claims in it
            targets = ["#notes", "#progress"]
        elif path == tether.task:
            targets = ["#notes"]
        elif path in (tether.progress, tether.artifacts, tether.root / "ledger.jsonl"):
            targets = ["#progress"]
        elif path == tether.events:
            targets = ["#events"]
        elif path == tether.checkpoints or path.parent == tether.checkpoints:
            targets = ["#checkpoints"]
        else:
            return
        for selector in targets:
            self.query_one(selector).post_message(StoreChanged(path))

    # -- focus -------------------------------------------------------------------------------

    def on_focus(self) -> None:
        """Land where typing makes sense: the Notes editor, or the active tab's own widget
        (unless the focus has moved on meanwhile: F9 twice in one read)."""
        if self.screen.focused is self:
            self.focus_active_tab()

    def focus_active_tab(self) -> None:
        active = self.query_one(TabbedContent).active
        if active == "tab-notes":
            self.query_one(NotesPane).focus_editor()
        elif active == "tab-checkpoints":
            self.query_one(CheckpointList).focus_list()
        elif active == "tab-events":
            self.query_one(EventsLog).focus()
        else:
            self.query_one(TabbedContent).query_one("Tabs").focus()

    def show_tab(self, name: str) -> None:
        """Bring a tab forward: ``notes``, ``progress``, ``checkpoints`` or ``events`` (focus
        stays where it is, unless it is in the pane: then it goes to the new tab's content,
        as with the tab keys of :class:`PaneKeys`)."""
        if self.has_focus_within:
            self.action_show_tab(name)
        else:
            self.query_one(TabbedContent).active = f"tab-{name}"
