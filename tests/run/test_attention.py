"""When tether calls the user back, and what it writes to their terminal."""

from __future__ import annotations

import pytest

from supervisor.config.notify import NotifySettings, load_notify_settings
from supervisor.errors import TetherError
from supervisor.run.attention import Attention


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_wait_after_long_work_calls_and_a_short_one_does_not():
    clock = Clock()
    attention = Attention(NotifySettings(after_busy_seconds=60), clock)
    assert attention.state("busy") is None
    clock.now += 20
    assert attention.state("waiting") is None  # a quick turn
    attention.state("busy")
    clock.now += 30
    attention.state("busy")  # still the same stretch of work
    clock.now += 200
    assert attention.state("waiting") == "the agent waits for input after 4 min of work"
    assert attention.state("waiting") is None  # once per wait


def test_waits_can_be_silenced_and_incidents_too():
    clock = Clock()
    attention = Attention(NotifySettings(after_busy_seconds=0, on_incident=False), clock)
    attention.state("busy")
    clock.now += 3600
    assert attention.state("waiting") is None
    assert attention.incident("Context compacted (#1)") is None


def test_the_sequence_is_a_bell_and_both_desktop_notifications_without_control_bytes():
    attention = Attention(NotifySettings(), Clock())
    sequence = attention.sequence("Context compacted (#3, auto)\x1b]0;evil\x07; rm")
    assert sequence == (
        "\x1b]9;tether: Context compacted (#3, auto)]0evil rm\x07"
        "\x1b]777;notify;tether;Context compacted (#3, auto)]0evil rm\x07"
        "\x07"
    )
    assert Attention(NotifySettings(bell=False, desktop=False), Clock()).sequence("x") == ""


def test_notify_toml_is_read_and_a_bad_one_is_named(tmp_path):
    path = tmp_path / "notify.toml"
    assert load_notify_settings(path) == NotifySettings()
    path.write_text("bell = false\nafter_busy_seconds = 120\n")
    assert load_notify_settings(path) == NotifySettings(bell=False, after_busy_seconds=120)
    path.write_text("after_busy_seconds = 'soon'\n")
    with pytest.raises(TetherError, match=r"notify\.toml:1: after_busy_seconds must be a number"):
        load_notify_settings(path)
    path.write_text("beep = true\n")
    with pytest.raises(TetherError, match=r"notify\.toml:1: unknown key 'beep'"):
        load_notify_settings(path)
