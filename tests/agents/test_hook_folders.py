"""The hook sockets' folders: named after their owner, swept once the owner is gone."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from supervisor.agents import hook_client, hook_folders
from supervisor.agents.hook_server import HookServer


def dead_pid() -> int:
    """The pid of a process that ran and was reaped (not recycled within the test)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait(timeout=30)
    return child.pid


def folder(base: Path, name: str, age: float = 0.0) -> Path:
    path = base / name
    path.mkdir(mode=0o700)
    if age:
        then = path.stat().st_mtime - age
        os.utime(path, (then, then))
    return path


def test_a_reserved_socket_folder_is_named_after_this_process(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    path = hook_client.reserve_socket_path()
    name = os.path.basename(os.path.dirname(path))
    assert hook_folders.owner_pid(name) == os.getpid()
    assert os.stat(os.path.dirname(path)).st_mode & 0o777 == 0o700


def test_the_sweep_removes_only_folders_whose_owner_is_gone(tmp_path):
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        dead = folder(tmp_path, f"tether-hook-{dead_pid()}-aaaaaaaaaaaa")
        (dead / "s").write_bytes(b"")  # a socket file left behind
        alive = folder(tmp_path, f"tether-hook-{live.pid}-bbbbbbbbbbbb")
        mine = folder(tmp_path, f"tether-hook-{os.getpid()}-cccccccccccc")
        other = folder(tmp_path, "something-else")
        assert hook_folders.sweep(str(tmp_path)) == 1
        assert not dead.exists()
        assert alive.is_dir() and mine.is_dir() and other.is_dir()
    finally:
        live.kill()
        live.wait(timeout=30)


def test_a_link_or_a_file_with_the_name_is_never_followed_or_removed(tmp_path):
    target = folder(tmp_path, "precious")
    (target / "keep").write_text("x")
    link = tmp_path / f"tether-hook-{dead_pid()}-dddddddddddd"
    link.symlink_to(target)
    plain = tmp_path / f"tether-hook-{dead_pid()}-eeeeeeeeeeee"
    plain.write_text("not a folder")
    assert hook_folders.sweep(str(tmp_path)) == 0
    assert (target / "keep").exists() and link.is_symlink() and plain.exists()


def test_an_old_style_folder_goes_once_old_and_nobody_answers_at_its_socket(tmp_path):
    old = folder(tmp_path, "tether-hook-0123456789ab", age=hook_folders.LEGACY_AGE_S + 60)
    young = folder(tmp_path, "tether-hook-ba9876543210")
    served = folder(tmp_path, "tether-hook-aaaabbbbcccc", age=hook_folders.LEGACY_AGE_S + 60)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(served / "s"))
    listener.listen(1)
    try:
        os.utime(served, (old.stat().st_mtime,) * 2)  # the bind touched it
        assert hook_folders.sweep(str(tmp_path)) == 1
    finally:
        listener.close()
    assert not old.exists()
    assert young.is_dir() and served.is_dir()


def test_a_stopped_server_leaves_no_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    server = HookServer(tmp_path, preload_after=None)
    path = server.start()
    assert os.path.exists(path)
    server.stop()
    assert [p.name for p in tmp_path.iterdir()] == []


@pytest.mark.parametrize("name", ["tether-hook-12-ab", "tether-hook-abcdef", "tether-hook-x-1"])
def test_owner_pid_reads_only_the_new_names(name):
    assert hook_folders.owner_pid(name) == (12 if name == "tether-hook-12-ab" else None)
