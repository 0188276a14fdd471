"""A start that fails lets go of all it took: the lock (emptied: no false unclean exit)
and the hook socket's folder."""

from __future__ import annotations

import pytest

from supervisor.errors import TetherError
from supervisor.run.launch import start_early
from supervisor.run.supervision import RunConfig
from supervisor.store import lock
from supervisor.store.tether_dir import TetherDir, init


def test_an_agent_that_cannot_start_leaves_no_lock_content_and_no_hook_folder(
    tmp_path, monkeypatch
):
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))
    monkeypatch.setenv("COLUMNS", "120")
    monkeypatch.setenv("LINES", "40")
    work = tmp_path / "work"
    work.mkdir()
    init(work)
    config = RunConfig(argv=[str(tmp_path / "no-such-agent")], workdir=work)
    with pytest.raises(TetherError):
        start_early(config)
    assert lock.inspect(TetherDir.at(work)) == ("free", None)
    assert list(temp.iterdir()) == []
