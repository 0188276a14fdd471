"""`tether hook` sends the agent's hook input only to a socket of this user's.

After a tether exits, its hook folder's name is free in a shared ``$TMPDIR``; a
surviving agent's hooks still name it. Another user who makes the folder and the
socket again would receive the hook's input and could answer the agent with
anything. The client checks the socket and its folder first, and never connects
to one it does not own.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from supervisor.agents import hook_client

NOBODY = 65534


class Listener:
    """A socket listening where a hook folder would be, that records who connected."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(mode=0o700)
        self.path = str(folder / "s")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(self.path)
        self.sock.listen(4)
        self.sock.setblocking(False)

    def connected(self) -> bool:
        try:
            conn, _ = self.sock.accept()
        except BlockingIOError:
            return False
        conn.close()
        return True

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def listener(tmp_path):
    made = Listener(tmp_path / f"tether-hook-{os.getpid()}-abcdef")
    yield made
    made.close()


def _ask(path: str) -> hook_client.Answer | None:
    return hook_client.ask("SessionStart", "/work", b'{"source": "compact"}', path)


def test_a_socket_of_ours_in_a_private_folder_is_used(listener):
    assert hook_client.is_ours(listener.path)


root_only = pytest.mark.skipif(os.getuid() != 0, reason="giving a file away needs root")


@root_only
def test_a_socket_owned_by_another_user_receives_nothing(listener):
    os.chown(listener.path, NOBODY, NOBODY)
    assert _ask(listener.path) is None  # handled here, as if no supervisor were there
    assert not listener.connected()


@root_only
def test_a_folder_owned_by_another_user_receives_nothing(listener):
    os.chown(os.path.dirname(listener.path), NOBODY, NOBODY)
    assert _ask(listener.path) is None
    assert not listener.connected()


@pytest.mark.parametrize("mode", [0o755, 0o770, 0o707, 0o711])
def test_a_folder_others_can_enter_or_change_receives_nothing(listener, mode):
    os.chmod(os.path.dirname(listener.path), mode)
    assert _ask(listener.path) is None
    assert not listener.connected()


def test_a_link_to_a_socket_is_not_followed(listener, tmp_path):
    folder = tmp_path / "tether-hook-1-linked"
    folder.mkdir(mode=0o700)
    (folder / "s").symlink_to(listener.path)
    assert _ask(str(folder / "s")) is None
    assert not listener.connected()


def test_a_folder_that_is_a_link_is_not_followed(listener, tmp_path):
    link = tmp_path / "tether-hook-2-linked"
    link.symlink_to(os.path.dirname(listener.path))
    assert _ask(str(link / "s")) is None
    assert not listener.connected()


def test_a_plain_file_where_the_socket_should_be_is_refused(tmp_path):
    folder = tmp_path / "tether-hook-3-file"
    folder.mkdir(mode=0o700)
    (folder / "s").write_text("not a socket")
    assert hook_client.is_ours(str(folder / "s")) is False
    assert _ask(str(folder / "s")) is None
