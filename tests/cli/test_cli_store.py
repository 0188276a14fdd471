"""The store commands as an agent or a script uses them: exit codes and words."""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from supervisor.cli import main
from supervisor.store.tether_dir import TetherDir
from tests.locations import REPO
from tests.store_records import append_artifact, read_jsonl
from tests.tether_process import TETHER


def tether(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def shell(work: Path, *args: str, preexec=None, prefix=()) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*prefix, *TETHER, *args, "--dir", str(work)],
        capture_output=True,
        text=True,
        cwd=REPO,
        preexec_fn=preexec,
        timeout=30,
    )


@pytest.fixture
def work(tmp_path, capsys) -> Path:
    assert tether(capsys, "init", "--dir", str(tmp_path), "--goal", "count to 400")[0] == 0
    return tmp_path


def test_textbook_case_check_names_both_numbers_and_fix_sets_380(work, capsys):
    t = TetherDir.at(work)
    t.artifacts.write_text("".join(json.dumps({"index": i}) + "\n" for i in range(380)))
    t.set_progress(cursor=381)
    code, out, _ = tether(capsys, "check", "--dir", str(work))
    assert code == 1 and "381" in out and "379" in out and "--fix" in out
    code, out, _ = tether(capsys, "check", "--fix", "--dir", str(work))
    assert code == 0 and t.read_progress().cursor == 380
    fixes = [e for e in read_jsonl(t.events)[0] if e["kind"] == "invariant-fix"]
    assert fixes and fixes[-1]["to_cursor"] == 380
    assert tether(capsys, "check", "--dir", str(work))[0] == 0


def test_converse_rolls_forward(work, capsys):
    t = TetherDir.at(work)
    append_artifact(t, task="first")
    assert tether(capsys, "check", "--dir", str(work))[0] == 1
    tether(capsys, "check", "--fix", "--dir", str(work))
    assert t.read_progress().cursor == 1


def test_status_json_reports_phase_cursor_invariant_checkpoint_and_incidents(work, capsys):
    d = str(work)
    tether(capsys, "note", "phase", "parsing", "--dir", d)
    tether(capsys, "checkpoint", "-m", "first", "--dir", d)
    TetherDir.at(work).record_incident("compaction", "hook")
    code, out, _ = tether(capsys, "status", "--json", "--dir", d)
    report = json.loads(out)
    assert code == 0 and report["phase"] == "parsing" and report["cursor"] == 0
    assert report["invariant"]["ok"] and report["incidents"] == 1
    assert report["last_checkpoint"]["seq"] == 1 and report["last_checkpoint"]["reason"] == "first"
    code, out, _ = tether(capsys, "status", "--dir", d)
    assert "phase:      parsing" in out and "#1" in out


def test_note_sections(work, capsys):
    d = str(work)
    notes_md = TetherDir.at(work).notes
    notes_md.write_text(notes_md.read_text() + "\n## Open questions\n")  # a section of our own
    for section, text in [
        ("decision", "use port 8443"),
        ("rejected", "port 443: needs root"),
        ("done", "config parser"),
        ("unproven", "cache helps"),
        ("next", "wire the server"),
        ("Open questions", "why?"),
    ]:
        code, out, _ = tether(capsys, "note", section, *text.split(), "--dir", d)
        assert code == 0, out
    notes = TetherDir.at(work).read_notes()
    assert "] use port 8443\n" in notes and "- port 443: needs root\n" in notes
    assert "## Open questions\n\n- why?\n" in notes
    assert "## Next step\n\nwire the server\n" in notes


def test_a_misspelt_section_is_refused_with_the_known_ones_and_a_close_match(work):
    before = TetherDir.at(work).read_notes()
    done = shell(work, "note", "decison", "use redis 7.2")
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "unknown notes section 'decison'" in done.stderr
    assert "did you mean 'decision'?" in done.stderr
    assert "phase, decision, rejected, done, unproven, next" in done.stderr
    assert "notes.md" in done.stderr and done.stdout == ""
    assert TetherDir.at(work).read_notes() == before  # nothing written anywhere
    assert shell(work, "note", "Decisions", "use redis 7.2").returncode == 0  # the title works


def test_history_show_diff_restore(work, capsys):
    d = str(work)
    tether(capsys, "checkpoint", "-m", "one", "--dir", d)
    tether(capsys, "note", "done", "step A", "--dir", d)
    tether(capsys, "checkpoint", "-m", "two", "--dir", d)
    code, out, _ = tether(capsys, "history", "--dir", d)
    assert code == 0 and "#1" in out and "one" in out and "#2" in out
    code, out, _ = tether(capsys, "show", "2", "--dir", d)
    assert "step A" in out and "=== notes.md ===" in out
    code, out, _ = tether(capsys, "diff", "1", "2", "--dir", d)
    assert "notes.md § Done" in out and "+- step A" in out
    code, out, _ = tether(capsys, "restore", "1", "--dir", d)
    assert code == 0 and "tether restore 3" in out
    assert "step A" not in TetherDir.at(work).read_notes()
    code, out, _ = tether(capsys, "diff", "3", "live", "--dir", d)
    assert "-- step A" in out


def test_missing_tether_folder(tmp_path, capsys):
    for command in (["status"], ["note", "done", "x"], ["check"], ["checkpoint"], ["history"]):
        code, _, err = tether(capsys, *command, "--dir", str(tmp_path))
        assert code == 2 and f"no .tether/ in {tmp_path}; run `tether init`" in err


def test_malformed_progress_and_torn_lines_are_named(work, capsys):
    t = TetherDir.at(work)
    t.progress.write_text('{"cursor": 3,')
    with open(t.events, "a") as handle:
        handle.write('{"at": "x", "kin')
    code, out, _ = tether(capsys, "status", "--dir", str(work))
    assert code == 0 and "progress.json:1" in out and "--fix" in out
    code, out, _ = tether(capsys, "check", "--dir", str(work))
    assert code == 1 and "progress.json" in out
    assert t.progress.read_text() == '{"cursor": 3,'  # nothing repaired without --fix


def test_binary_notes_file(work, capsys):
    t = TetherDir.at(work)
    t.notes.write_bytes(b"\x00\x01\xff\xfe binary")
    code, _, err = tether(capsys, "note", "done", "x", "--dir", str(work))
    assert code == 2 and "notes.md" in err and "not UTF-8" in err
    assert t.notes.read_bytes() == b"\x00\x01\xff\xfe binary"


def _no_dac_override():
    if os.geteuid() != 0:
        return ()
    if not shutil.which("setpriv"):
        pytest.skip("root without setpriv: cannot make a folder read-only for ourselves")
    return ("setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner")


def test_read_only_folder(work):
    t = TetherDir.at(work)
    before = t.read_notes()
    os.chmod(t.checkpoints, 0o555)
    os.chmod(t.root, 0o555)
    try:
        done = shell(work, "note", "done", "x", prefix=_no_dac_override())
        assert done.returncode == 2 and "Traceback" not in done.stderr
        assert "notes.md" in done.stderr and "read-only" in done.stderr
        done = shell(work, "checkpoint", prefix=_no_dac_override())
        assert done.returncode == 2 and "Traceback" not in done.stderr
        assert "000001.json" in done.stderr or "checkpoints" in done.stderr
    finally:
        os.chmod(t.root, 0o755)
        os.chmod(t.checkpoints, 0o755)
    assert t.read_notes() == before


def _file_size_limit(limit: int):
    def apply():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


def test_full_disk(work):
    t = TetherDir.at(work)
    t.add_note("done", "x" * 6000)
    before = t.notes.read_bytes()
    progress_before = t.progress.read_bytes()
    done = shell(work, "note", "done", "one more", preexec=_file_size_limit(4096))
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "notes.md" in done.stderr and "size limit" in done.stderr
    done = shell(work, "checkpoint", preexec=_file_size_limit(4096))
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "000001.json" in done.stderr
    assert t.notes.read_bytes() == before and t.progress.read_bytes() == progress_before
    assert not list(t.checkpoints.iterdir())
    assert not [p for p in t.root.iterdir() if p.name.endswith(".tmp")]


def test_store_commands_do_not_import_textual_watchdog_or_tiktoken(work):
    code = (
        "import sys; from supervisor.cli import main\n"
        f"main(['status', '--dir', {str(work)!r}]); main(['checkpoint', '--dir', {str(work)!r}])\n"
        "heavy = [m for m in ('textual', 'watchdog', 'tiktoken') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert done.returncode == 0, done.stderr


def test_status_says_the_last_recall_check(work, capsys):
    d = str(work)
    t = TetherDir.at(work)
    t.add_decisions(["poll every 30 s"], "test")
    assert json.loads(tether(capsys, "status", "--json", "--dir", d)[1])["recall"] is None
    t.record_event("injection", "supervisor", reason="rehydrate", incident=1, restate="all")
    assert "recall:     not checked: the run ended" in tether(capsys, "status", "--dir", d)[1]
    tether(capsys, "ack", "we poll every 30 seconds", "--dir", d)
    out = tether(capsys, "status", "--dir", d)[1]
    assert "recall:     complete: recovered: 1 of 1 decisions restated" in out
    report = json.loads(tether(capsys, "status", "--json", "--dir", d)[1])
    assert report["recall"]["result"] == "complete" and report["recall"]["restated"] == [1]


def test_check_flags_gaps_and_torn_lines_with_their_real_line_numbers(work):
    t = TetherDir.at(work)
    lines = [json.dumps({"index": i}) for i in (0, 1, 2, 3, 5)]
    lines.insert(2, '{"index": 9, "tor')  # a torn line in the middle: line 3
    t.artifacts.write_text("\n".join(lines) + "\n" + '{"index": 6, "ha')  # and a torn last line
    t.set_progress(cursor=6)
    done = shell(work, "check")
    assert "Traceback" not in done.stderr
    said = done.stdout
    assert f"warning: {t.artifacts}:3: not valid JSON" in said
    assert f"warning: {t.artifacts}:7: torn last line" in said
    assert f"warning: {t.artifacts}:6: index 5 follows 3: index 4 is missing" in said
    assert ":-1:" not in said


def test_check_fix_says_what_it_changed(work):
    t = TetherDir.at(work)
    t.artifacts.write_text("".join(json.dumps({"index": i}) + "\n" for i in range(380)))
    t.set_progress(cursor=381)
    done = shell(work, "check", "--fix")
    assert done.returncode == 0, done.stderr
    assert "changed: progress.json: cursor 381 → 380" in done.stdout
    assert "now:   cursor 380 matches artifacts (last index 379)" in done.stdout
    (fix,) = [e for e in read_jsonl(t.events)[0] if e["kind"] == "invariant-fix"]
    assert "progress says cursor 381" in fix["before"] and "cursor 380 matches" in fix["after"]
    assert fix["changes"] == ["progress.json: cursor 381 → 380"]
    again = shell(work, "check", "--fix")
    assert "changed nothing" in again.stdout


def test_history_is_newest_first_and_names_each_incident_once(work, capsys):
    d = str(work)
    tether(capsys, "checkpoint", "-m", "one", "--dir", d)
    tether(
        capsys, "checkpoint", "-m", "Context compacted (#1, auto)", "--incident", "1", "--dir", d
    )
    tether(capsys, "checkpoint", "-m", "before injection", "--incident", "1", "--dir", d)
    _code, out, _ = tether(capsys, "history", "--dir", d)
    lines = out.splitlines()
    assert [line.split()[0] for line in lines] == ["#3", "#2", "#1"]
    assert lines[1].endswith("Context compacted (#1, auto)")  # not "... incident 1" again
    assert lines[0].endswith("before injection  (incident #1)")
    _code, out, _ = tether(capsys, "history", "--json", "--dir", d)
    assert [row["seq"] for row in json.loads(out)] == [3, 2, 1]  # the same order as the text
    _code, out, _ = tether(capsys, "history", "--json", "-n", "2", "--dir", d)
    assert [row["seq"] for row in json.loads(out)] == [3, 2]  # the newest N


def test_status_says_the_supervisors_state_in_the_same_words_in_text_and_json(work, capsys):
    code, out, _ = tether(capsys, "status", "--json", "--dir", str(work))
    assert code == 0 and json.loads(out)["supervisor"]["state"] == "not running"


def test_init_with_a_goal_in_an_existing_folder_says_the_goal_was_not_written(work, capsys):
    before = TetherDir.at(work).read_task()
    code, out, err = tether(capsys, "init", "--goal", "new goal", "--dir", str(work))
    assert code == 1
    assert "the goal was not written" in err and "task.md already exists" in err
    assert "already there, left as they were: task.md" in out
    assert TetherDir.at(work).read_task() == before


def test_status_says_the_last_loss_audit_changed_facts_first(work, capsys):
    from supervisor.recognize.loss_audit import audit_summary

    d = str(work)
    pins = ["Access tokens expire after 15 minutes.", "Deploy only to us-east-2."]
    audit = audit_summary(pins, "Access tokens expire after 30 minutes.").to_dict()
    TetherDir.at(work).record_incident("compaction", "hook", audit=audit)
    out = tether(capsys, "status", "--dir", d)[1]
    assert "audit:      #1: changed: 15 minutes → 30 minutes, 1 lost" in out
    report = json.loads(tether(capsys, "status", "--json", "--dir", d)[1])
    assert report["loss_audit"]["changed"] == ["15 minutes → 30 minutes"]
