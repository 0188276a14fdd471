"""The side pane and its tabs: Notes, Progress, Checkpoints, Events, each showing `.tether/`.

The pane owns the folder's watcher and hands each file change to its tabs as a
:class:`~widgets.side_pane.store_changed.StoreChanged`; the tabs never reach into
each other.
"""

from widgets.side_pane.pane import SidePane

__all__ = ["SidePane"]
