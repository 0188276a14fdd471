"""The test session leaves no hook socket folder behind (``/tmp/tether-hook-*``).

Every hook server the tests start, in this process or in a `tether` child, must
remove its folder when it stops. The folders carry their owner's pid: one of this
process's still there at the end is a leak for certain, and fails the session,
naming the tests that made it; a new one whose owner died (a child killed outright,
or another run on the machine at the same time) is reported.
"""

from __future__ import annotations

import os

import pytest

from supervisor.agents import hook_folders

_before: set[str] = set()
_made_by: dict[str, str] = {}  # folder -> the test during which it appeared
_report: list[str] = []


def _bases() -> list[str]:
    return sorted({hook_folders.base_folder(), "/tmp"})


def _folders() -> set[str]:
    found = set()
    for base in _bases():
        try:
            names = os.listdir(base)
        except OSError:
            continue
        found |= {os.path.join(base, n) for n in names if n.startswith(hook_folders.PREFIX)}
    return found


def _ours(folders: set[str]) -> set[str]:
    me = os.getpid()
    return {f for f in folders if hook_folders.owner_pid(os.path.basename(f)) == me}


def pytest_sessionstart(session: pytest.Session) -> None:
    _before.update(_folders())


@pytest.fixture(autouse=True)
def _hook_folder_watch(request: pytest.FixtureRequest):
    """Remember which test made each of this process's folders (for the session's report)."""
    before = _ours(_folders())
    yield
    for folder in _ours(_folders()) - before:
        _made_by.setdefault(folder, request.node.nodeid)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    new = _folders() - _before
    ours = sorted(_ours(new))
    if ours:
        _report.append(f"{len(ours)} hook socket folder(s) of this test process left behind:")
        _report.extend(f"  {f}  (made during {_made_by.get(f, 'a fixture or hook')})" for f in ours)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    # An unnamed folder is an older checkout's (another run on this machine): not ours.
    named = {f for f in new - set(ours) if hook_folders.owner_pid(os.path.basename(f))}
    orphaned = sorted(f for f in named if hook_folders.is_stale(f))
    if orphaned:
        _report.append(
            f"{len(orphaned)} new hook socket folder(s) whose owner died (a `tether` child "
            "killed outright, or another run on this machine): " + ", ".join(orphaned[:10])
        )


def pytest_terminal_summary(terminalreporter) -> None:
    for line in _report:
        terminalreporter.write_line(line, red=True)
