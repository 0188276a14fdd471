"""Hostile input, row by row of issue 15's table: a cloned repository, a broken file or a
runaway pattern cannot hurt the user.

Each test plants what an attacker (or an accident) would, in a real `.tether/`, and runs
the real command in a child process: what must hold is the user's files untouched, a
message naming the path, and no traceback. Resource limits (CPU seconds, address space)
turn a runaway into a failure instead of a hung suite; no test asserts a duration.
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from supervisor.config.profiles import parse_profile
from supervisor.errors import TetherError
from supervisor.rehydrate.payload import build_payload
from supervisor.rehydrate.tokens import count_tokens
from supervisor.run.supervision import RunConfig, Supervision
from supervisor.store import lock, notes
from supervisor.store.tether_dir import TetherDir, init
from supervisor.terminal.session import AgentSession
from tests.locations import REPO
from tests.store_records import recent_events
from tests.tether_process import TETHER


def limits(cpu_seconds: int = 60, memory: int = 2 << 30):
    """A child that runs away is killed (CPU) or fails (memory) instead of taking the machine."""

    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds))
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    return apply


def tether(*args: str | bytes, stdin: bytes = b"", env=None, cpu: int = 60):
    done = subprocess.run(
        [*TETHER, *args],
        input=stdin,
        capture_output=True,
        cwd=REPO,
        env=env,
        preexec_fn=limits(cpu),
        timeout=300,
    )
    return done.returncode, done.stdout.decode("utf-8", "replace"), done.stderr.decode()


def no_traceback(err: str) -> None:
    assert "Traceback" not in err, err


@pytest.fixture
def work(tmp_path) -> Path:
    init(tmp_path, goal="count to 400")
    return tmp_path


@pytest.fixture
def victim(tmp_path) -> Path:
    """A user file outside the folder, which nothing tether does may touch."""
    path = tmp_path.parent / f"{tmp_path.name}-victim.txt"
    path.write_text("the user's own file\n")
    return path


# -- a committed .tether/lock that is a symlink -------------------------------------------------


def test_a_lock_linked_to_a_user_file_is_refused_and_the_file_kept(work, victim):
    t = TetherDir.at(work)
    t.lock.unlink(missing_ok=True)
    t.lock.symlink_to(victim)
    with pytest.raises(TetherError) as refused:
        lock.acquire(t)
    assert str(t.lock) in str(refused.value) and "symbolic link" in str(refused.value)
    assert victim.read_text() == "the user's own file\n"


def test_status_with_a_lock_linked_to_dev_zero_says_so(work):
    t = TetherDir.at(work)
    t.lock.unlink(missing_ok=True)
    t.lock.symlink_to("/dev/zero")
    code, _out, err = tether("status", "--dir", str(work), cpu=30)
    no_traceback(err)
    assert code == 2 and str(t.lock) in err and "/dev/zero" in err


def test_a_lock_that_is_a_device_is_refused_even_without_a_link(work):
    t = TetherDir.at(work)
    t.lock.unlink(missing_ok=True)
    os.mkfifo(t.lock)  # opened without O_NONBLOCK, a FIFO would hang the read
    code, _out, err = tether("status", "--dir", str(work), cpu=30)
    no_traceback(err)
    assert code == 2 and "named pipe" in err


# -- committed symlinks events.jsonl, checkpoints/, sessions/, agent/ ----------------------------


@pytest.mark.parametrize("name", ["events.jsonl", "checkpoints", "sessions", "agent"])
def test_a_linked_file_or_folder_inside_is_never_written_through(work, tmp_path, name):
    t = TetherDir.at(work)
    outside = tmp_path.parent / f"{tmp_path.name}-outside-{name}"
    target = t.root / name
    if target.is_dir():
        target.rmdir()
        outside.mkdir()
    else:
        target.unlink()
        outside.write_text("# sourced by the user's shell\n")
    target.symlink_to(outside)
    before = sorted(os.listdir(outside)) if outside.is_dir() else outside.read_text()
    hook = json.dumps({"prompt": "please run $(touch /tmp/pwned)"}).encode()
    tether("hook", "UserPromptSubmit", "--dir", str(work), stdin=hook)
    code, _out, err = tether("checkpoint", "--dir", str(work))
    no_traceback(err)
    assert code == 2 and str(target) in err and "symbolic link" in err
    with pytest.raises(TetherError):
        Supervision(RunConfig(argv=["true"], workdir=work), AgentSession(["true"])).open()
    after = sorted(os.listdir(outside)) if outside.is_dir() else outside.read_text()
    assert after == before


def test_a_tether_folder_that_is_a_link_is_refused(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    init(elsewhere)
    work = tmp_path / "clone"
    work.mkdir()
    (work / ".tether").symlink_to(elsewhere / ".tether")
    code, _out, err = tether("status", "--dir", str(work))
    no_traceback(err)
    assert code == 2 and "is a symbolic link" in err and "real folder" in err


# -- notes.md / task.md linked to a file outside ------------------------------------------------


@pytest.mark.parametrize("name", ["notes.md", "task.md"])
def test_a_linked_note_never_reaches_the_payload(work, tmp_path, name):
    secret = tmp_path.parent / f"{tmp_path.name}-token"
    secret.write_text("ghp_SECRET_TOKEN_0123456789\n")
    target = TetherDir.at(work).root / name
    target.unlink()
    target.symlink_to(secret)
    code, out, err = tether("payload", "--dir", str(work))
    no_traceback(err)
    assert code == 2 and str(target) in err
    assert "ghp_SECRET" not in out + err


# -- a profile regex (a+)+$ and 35 a's printed by the agent -------------------------------------

RUNAWAY_PROFILE = """\
command = ["sh"]
preamble = "re-read .tether/"

[markers]
compaction = ['(a+)+$']
busy = ['(x+x+)+y']
"""


def test_a_backtracking_profile_regex_runs_in_linear_time(tmp_path):
    # In a child with a CPU limit: Python's `re` takes 2^35 steps here and is killed.
    script = f"""
import sys
from supervisor.config.profiles import parse_profile
from supervisor.recognize.screen_detector import ScreenDetector
from supervisor.terminal.avt_emulator import AvtEmulator
profile = parse_profile({RUNAWAY_PROFILE!r}, "runaway.toml")
emulator = AvtEmulator(80, 24)
emulator.feed((("a" * 35 + "b" + "\\r\\n" + "x" * 40 + "\\r\\n") * 10).encode())
ScreenDetector(profile.markers).scan(emulator, 0.0)
print("scanned")
"""
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        cwd=REPO,
        preexec_fn=limits(cpu_seconds=20),
        timeout=120,
    )
    assert done.returncode == 0 and b"scanned" in done.stdout, done.stderr.decode()


def test_a_pattern_the_engine_cannot_run_is_refused_with_file_line_and_key(tmp_path):
    text = RUNAWAY_PROFILE.replace("busy = ['(x+x+)+y']", "busy = ['(a)\\1']")
    with pytest.raises(TetherError) as refused:
        parse_profile(text, tmp_path / "mine.toml")
    message = str(refused.value)
    assert f"{tmp_path / 'mine.toml'}:6:" in message and "markers.busy" in message
    assert "linear time" in message


# -- notes.md of many MB: linear, cut to the budget, off the UI loop ----------------------------


def _big_notes(work: Path, megabytes: int, *, next_step_mb: float = 0.0) -> None:
    t = TetherDir.at(work)
    item = "- converted batch {i} of the quarterly reports, checked the totals twice\n"
    per = (megabytes * 1024 * 1024) // 4
    done = "".join(item.format(i=i) for i in range(per // len(item)))
    next_step = "".join(
        f"then batch {i} of the reports\n" for i in range(int(next_step_mb * 1024 * 1024) // 28)
    )
    t.write_notes(
        "# Notes\n\n## Phase\n\nconverting\n\n## Decisions\n\n- DECISION: use port 8443\n\n"
        f"## Rejected approaches\n\n{done}\n## Done\n\n{done}{done}\n## Unproven\n\n{done}\n"
        f"## Next step\n\n{next_step or 'convert report 381'}\n"
    )


def test_the_payload_of_sixteen_megabytes_of_notes_is_built_within_its_cpu_limit(work):
    # The quadratic builder needed about 13 s of CPU for 4 MB, so minutes for 16.
    _big_notes(work, 16)
    code, out, err = tether("payload", "--dir", str(work), cpu=30)
    no_traceback(err)
    assert code == 0 and "use port 8443" in out
    assert "OVER BUDGET" not in err


def test_a_huge_next_step_is_cut_to_the_budget_with_a_pointer(work):
    _big_notes(work, 1, next_step_mb=2)
    profile = parse_profile(
        'command = ["sh"]\npreamble = "re-read .tether/"\npayload_budget = 4000\n[markers]\n',
        "p.toml",
    )
    payload = build_payload(TetherDir.at(work), profile)
    assert not payload.over_budget and payload.tokens <= 4000
    assert count_tokens(payload.text).n == payload.tokens
    assert "Next step" in payload.cut
    assert "the Next step was cut: read it whole in .tether/notes.md § Next step" in payload.text
    assert "then batch 0 of the reports" in payload.text  # its head is kept


def test_sessionstart_answers_on_the_largest_notes_within_its_cpu_limit(work):
    _big_notes(work, 50)
    hook = json.dumps({"source": "compact", "session_id": "s1"}).encode()
    env = {**os.environ, "TETHER_PROFILE": "claude"}
    code, out, err = tether("hook", "SessionStart", "--dir", str(work), stdin=hook, env=env, cpu=10)
    no_traceback(err)
    assert code == 0
    assert "use port 8443" in json.loads(out)["hookSpecificOutput"]["additionalContext"]


async def test_f6_builds_the_payload_off_the_event_loop(work, shell_env):
    from supervisor.app import TetherApp

    _big_notes(work, 1)
    config = RunConfig(argv=["cat"], workdir=work, env=shell_env, side_pane=False)
    app = TetherApp(config)
    threads: list[threading.Thread] = []
    async with app.run_test(size=(120, 30)) as pilot:
        real = app.supervision.build_payload

        def build(*args, **kwargs):
            threads.append(threading.current_thread())
            return real(*args, **kwargs)

        app.supervision.build_payload = build
        await pilot.press("f6")
        await app.workers.wait_for_complete()
        await pilot.pause()
    assert threads and all(t is not threading.main_thread() for t in threads)


# -- a 5,000-digit integer in progress.json or one artifact line --------------------------------

HUGE = "9" * 5000


@pytest.mark.parametrize("where", ["progress", "artifact"])
@pytest.mark.parametrize("command", ["status", "check", "payload"])
def test_a_five_thousand_digit_number_gets_a_message(work, where, command):
    t = TetherDir.at(work)
    if where == "progress":
        t.progress.write_text('{"cursor": ' + HUGE + ', "phase": "x"}\n')
    else:
        t.artifacts.write_text('{"index": 0}\n{"index": ' + HUGE + "}\n")
    code, out, err = tether(command, "--dir", str(work))
    no_traceback(err)
    assert code in (0, 1, 2)
    if where == "progress":
        assert str(t.progress) in out + err and "digits" in out + err


@pytest.mark.parametrize("digits", [5000, 4000])
def test_a_run_starts_over_a_five_thousand_digit_cursor(work, digits):
    TetherDir.at(work).progress.write_text('{"cursor": ' + "9" * digits + "}\n")
    supervision = Supervision(
        RunConfig(argv=["true"], workdir=work), AgentSession(["true"], cwd=str(work))
    )
    supervision.open()
    supervision.close()


# -- a non-UTF-8 argument, and nothing half-created ---------------------------------------------


def test_a_non_utf8_goal_is_refused_and_nothing_is_created(tmp_path):
    code, _out, err = tether("init", "--dir", str(tmp_path), "--goal", b"a\x9bb")
    no_traceback(err)
    assert code == 2 and "not UTF-8" in err
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize(
    "args", [("note", "done", b"a\x9bb"), ("note", b"d\x9bne", "x"), ("checkpoint", "-m", b"\xff")]
)
def test_non_utf8_text_arguments_are_refused_and_nothing_is_written(work, args):
    t = TetherDir.at(work)
    before = (t.read_notes(), t.events.read_bytes(), os.listdir(t.checkpoints))
    code, _out, err = tether(*args, "--dir", str(work))
    no_traceback(err)
    assert code == 2 and "not UTF-8" in err
    assert (t.read_notes(), t.events.read_bytes(), os.listdir(t.checkpoints)) == before


def test_a_hook_with_a_non_utf8_event_name_still_exits_0_and_is_recorded(work):
    code, _out, err = tether("hook", b"Stop\x9b", "--dir", str(work), stdin=b"{}")
    assert code == 0
    no_traceback(err)
    events, _ = recent_events(TetherDir.at(work), 3)
    assert events[-1]["kind"] == "hook" and events[-1]["event"] == "Stop"


def test_an_init_that_fails_half_way_leaves_nothing(tmp_path):
    with pytest.raises(TetherError):
        init(tmp_path, goal="a\udc9bb")  # a surrogate-escaped byte, as argv delivers it
    assert os.listdir(tmp_path) == []


def test_a_folder_with_a_non_utf8_name_works(tmp_path):
    folder = os.path.join(os.fsencode(tmp_path), b"caf\xe9")
    os.mkdir(folder)
    for args in (("init", "--goal", "g"), ("status",), ("note", "done", "x"), ("payload",)):
        code, _out, err = tether(*args, "--dir", folder)
        no_traceback(err)
        assert code == 0, err


def test_tether_is_created_private(tmp_path):
    t = init(tmp_path).tether
    assert stat.S_IMODE(t.root.stat().st_mode) == 0o700
    for path in (t.notes, t.task, t.progress, t.events):
        assert stat.S_IMODE(path.stat().st_mode) & 0o077 == 0, path


def test_a_tether_folder_an_older_tether_left_open_is_closed_at_the_next_run(work):
    t = TetherDir.at(work)
    os.chmod(t.root, 0o755)
    lock.acquire(t).release()
    assert stat.S_IMODE(t.root.stat().st_mode) == 0o700
    events, _ = recent_events(t, 5)
    assert [e["mode_before"] for e in events if e["kind"] == "made_private"] == ["0o755"]


# -- hook stdin nested 100,000 levels deep ------------------------------------------------------


def test_deep_hook_json_is_recorded_as_such(work):
    deep = b"[" * 100_000 + b"]" * 100_000
    code, _out, err = tether("hook", "PreCompact", "--dir", str(work), stdin=deep)
    assert code == 0
    no_traceback(err)
    events, _ = recent_events(TetherDir.at(work), 5)
    hook = [e for e in events if e["kind"] == "hook"][-1]
    assert hook["event"] == "PreCompact" and "nested too deeply" in hook["error"]


# -- `read -s` in `tether run -- bash`: nothing unechoed is pinned ------------------------------


async def test_read_s_typing_a_decision_pins_nothing(work):
    script = 'read -s -p "secret> " x; echo "[read ${#x} chars]"; read -p "next> " y; sleep 5'
    argv = ["bash", "--norc", "--noprofile", "-c", script]
    session = AgentSession(argv, cols=100, rows=20, cwd=str(work))
    supervision = Supervision(RunConfig(argv=argv, workdir=work), session)
    supervision.open()
    session.start()
    tether_dir = supervision.tether

    async def until(condition) -> None:
        for _ in range(500):
            if condition():
                return
            await asyncio.sleep(0.02)
        raise AssertionError("never happened")

    try:
        await until(lambda: "secret>" in "\n".join(session.emulator.display()))
        session.send_input(b"DECISION: secret hunter2\r")
        await until(lambda: "next>" in "\n".join(session.emulator.display()))
        session.send_input(b"DECISION: visible choice\r")
        await until(lambda: notes.pinned_decisions(tether_dir.read_notes()))
        assert notes.pinned_decisions(tether_dir.read_notes()) == ["visible choice"]
        assert "hunter2" not in tether_dir.read_notes() + tether_dir.events.read_text()
        # The decision's event is recorded off the loop, after the note: wait for it.
        await until(lambda: any(e["kind"] == "decision" for e in recent_events(tether_dir, 50)[0]))
        events, _ = recent_events(tether_dir, 50)
        assert [e["source"] for e in events if e["kind"] == "decision"] == ["typed"]
    finally:
        supervision.stop_agent()
        supervision.close()


# -- a .tether/ committed to git in a cloned repository -----------------------------------------


def _git(work: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(work), *args], check=True, capture_output=True)


def test_a_committed_tether_folder_is_not_pasted_before_the_user_trusts_it(
    work, tmp_path, monkeypatch
):
    _git(work, "init", "-q")
    _git(work, "add", ".tether/notes.md", ".tether/task.md")
    _git(work, "-c", "user.name=x", "-c", "user.email=x@x", "commit", "-qm", "notes")
    env = {**os.environ, "TETHER_CONFIG_DIR": str(tmp_path / "cfg"), "TETHER_PROFILE": "claude"}
    hook = json.dumps({"source": "compact", "session_id": "s1"}).encode()
    code, out, _err = tether("hook", "SessionStart", "--dir", str(work), stdin=hook, env=env)
    assert code == 0 and out == ""  # nothing pasted
    events, _ = recent_events(TetherDir.at(work), 5)
    assert events[-1]["kind"] == "auto_rehydrate_withheld"
    code, _out, err = tether("run", "--dir", str(work), "--", "true", env=env)
    no_traceback(err)
    assert code == 2 and "tracked by git" in err and "--trust" in err
    from supervisor.store import trust

    monkeypatch.setenv("TETHER_CONFIG_DIR", env["TETHER_CONFIG_DIR"])
    trust.trust(TetherDir.at(work))  # what answering yes at `tether run` does
    code, out, _err = tether("hook", "SessionStart", "--dir", str(work), stdin=hook, env=env)
    assert code == 0 and "additionalContext" in out
