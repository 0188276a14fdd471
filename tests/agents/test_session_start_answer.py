"""`tether hook SessionStart` as Claude Code runs it: after a compaction, it answers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from supervisor.config.profiles import load_profile
from supervisor.rehydrate.payload import build_payload, latest_incident
from supervisor.store import checkpoints
from supervisor.store.tether_dir import TetherDir, init
from tests.locations import REPO
from tests.store_records import read_jsonl
from tests.tether_process import run_tether

DECISION = "Retry budget is 250 ms per call; use `retry_budget_ms`"


@pytest.fixture
def work(tmp_path) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    tether = init(work, goal="count to 400").tether
    tether.add_note("decision", DECISION)
    tether.add_note("next", "write artifact 12")
    tether.record_incident(
        "compaction",
        "hook",
        trigger="auto",
        sources=["hook"],
        audit={"lost": [{"decision": DECISION, "missing": ["250 ms"]}], "degraded": []},
    )
    return work


def hook(work: Path, stdin: dict | str, *, event: str = "SessionStart", profile: str | None = None):
    env = {k: v for k, v in os.environ.items() if k != "TETHER_PROFILE"}
    # The test's own config folder (conftest): bundled profiles only, and `init` trusted
    # the `.tether/` it made there.
    env.setdefault("TETHER_CONFIG_DIR", str(work.parent / "cfg"))
    if profile:
        env["TETHER_PROFILE"] = profile
    data = stdin if isinstance(stdin, str) else json.dumps(stdin)
    return run_tether("hook", event, "--dir", str(work), stdin=data, env=env)


def session_start(source: str) -> dict:
    return {
        "session_id": "59d7e0a2-0000-4000-8000-000000000000",
        "transcript_path": "/tmp/x.jsonl",
        "cwd": "/tmp",
        "hook_event_name": "SessionStart",
        "source": source,
    }


@pytest.mark.parametrize("source", ["compact", "clear"])
def test_session_start_after_a_loss_answers_with_the_payload(work, source):
    done = hook(work, session_start(source))
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)  # stdout is only that JSON
    assert list(answer) == ["hookSpecificOutput"]
    output = answer["hookSpecificOutput"]
    assert output["hookEventName"] == "SessionStart"
    context = output["additionalContext"]
    tether = TetherDir.at(work)
    profile = load_profile("claude")
    assert context.startswith(profile.preamble)
    assert DECISION in context and "write artifact 12" in context
    if source == "compact":  # the compaction recorded a moment ago, with its audit
        assert "Context compacted (#1, auto)" in context
        assert "- LOST: decision 1 (missing: 250 ms)" in context
    else:  # a /clear is a new loss: the hook records it, and the payload is about it
        assert "Context wiped (#2), seen by hook" in context and "LOST" not in context
    number = 1 if source == "compact" else 2
    # Exactly the payload of the checkpoint taken just before answering.
    seq = checkpoints.latest_seq(tether)
    assert checkpoints.load(tether, seq).reason == "before auto rehydration"
    expected = build_payload(tether, profile, checkpoint=seq, incident=latest_incident(tether))
    assert context == expected.text
    events = read_jsonl(tether.events)[0]
    auto = [e for e in events if e["kind"] == "auto_rehydrate"]
    assert len(auto) == 1
    assert auto[0]["hook_source"] == source and auto[0]["tokens"] == expected.tokens
    assert auto[0]["incident"] == number and auto[0]["checkpoint"] == seq
    assert any(e["kind"] == "hook" and e.get("event") == "SessionStart" for e in events)


def test_a_clear_nothing_else_saw_yet_is_not_described_as_the_last_compaction(work):
    """Codex fires SessionStart(clear) before any other source saw the wipe: the payload
    must not present the earlier compaction (and its audit) as what was just lost."""
    done = hook(work, session_start("clear"), profile="codex")
    assert done.returncode == 0, done.stderr
    context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert DECISION in context and "LOST" not in context and "Context wiped (#2)" in context
    auto = [e for e in read_jsonl(TetherDir.at(work).events)[0] if e["kind"] == "auto_rehydrate"]
    assert auto[0]["incident"] == 2 and auto[0]["profile"] == "codex"


@pytest.mark.parametrize("source", ["startup", "resume"])
def test_session_start_at_startup_or_resume_prints_nothing(work, source):
    done = hook(work, session_start(source))
    assert done.returncode == 0 and done.stdout == "", done.stderr
    kinds = [e["kind"] for e in read_jsonl(TetherDir.at(work).events)[0]]
    assert "auto_rehydrate" not in kinds and "hook" in kinds


def test_a_profile_without_auto_rehydrate_prints_nothing(work):
    assert not load_profile("demo").auto_rehydrate
    done = hook(work, session_start("compact"), profile="demo")
    assert done.returncode == 0 and done.stdout == "", done.stderr


def test_other_events_and_bad_input_print_nothing(work):
    assert hook(work, {"hook_event_name": "Stop"}, event="Stop").stdout == ""
    bad = hook(work, "{not json")
    assert bad.returncode == 0 and bad.stdout == "" and "Traceback" not in bad.stderr


def test_only_the_answering_branch_imports_the_tokenizer(work):
    code = (
        "import io, json, sys\n"
        "from supervisor.agents.hook_command import handle\n"
        "def run(event, data):\n"
        "    out = io.StringIO()\n"
        "    handle(event, sys.argv[1], io.BytesIO(json.dumps(data).encode()), out)\n"
        "    return out.getvalue()\n"
        "assert run('PreCompact', {'trigger': 'auto'}).startswith('tether keeps')\n"
        "assert run('SessionStart', {'source': 'startup'}) == ''\n"
        "assert 'tiktoken' not in sys.modules\n"
        "assert 'supervisor.rehydrate.payload' not in sys.modules\n"
        "assert json.loads(run('SessionStart', {'source': 'compact'}))['hookSpecificOutput']\n"
        "assert 'tiktoken' in sys.modules\n"
    )
    env = dict(os.environ)  # the test's own config folder (conftest), where init trusted it
    env.pop("TETHER_PROFILE", None)
    done = subprocess.run(
        [sys.executable, "-c", code, str(work)], capture_output=True, text=True, cwd=REPO, env=env
    )
    assert done.returncode == 0, done.stderr


def test_the_answer_fits_claudes_limit_and_codex_gets_it_whole(work):
    """Claude Code 2.1.332 cuts a SessionStart additionalContext over 10,000 characters to a
    preview (seen in the e2e tier); Codex is told to take it whole (codex_hooks)."""
    tether = TetherDir.at(work)
    for n in range(60):
        tether.add_note("done", f"DONE-{n:02d} " + "wrote and tested one more module " * 7)
    answers = {}
    for profile in ("claude", "codex"):
        done = hook(work, session_start("compact"), profile=profile)
        assert done.returncode == 0, done.stderr
        answers[profile] = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    limit = load_profile("claude").hook_context_limit
    assert 0 < len(answers["claude"]) <= limit < len(answers["codex"])
    for context in answers.values():
        assert DECISION in context and "write artifact 12" in context
    assert "DONE-59" in answers["claude"] and "DONE-00" not in answers["claude"]  # older go
    assert "DONE-00" in answers["codex"]


def _processes_started(monkeypatch, answer) -> tuple[list[list[str]], object]:
    """The commands ``answer()`` starts (each still run), and what it returned."""
    started: list[list[str]] = []
    real = subprocess.Popen.__init__

    def counting(self, args, *rest, **kwargs):
        started.append(list(args))
        real(self, args, *rest, **kwargs)

    monkeypatch.setattr(subprocess.Popen, "__init__", counting)
    return started, answer()


def test_the_supervisors_answer_starts_no_process_outside_git(work, monkeypatch):
    """Outside any git work tree git has nothing to say (the checkpoint's position is None
    anyway): the answer the hook server builds starts no process. Two git calls a
    compaction once cost the hook ~10 ms."""
    import io

    from supervisor.agents.hook_command import handle
    from supervisor.store.checkout import repository_root

    assert repository_root(work) is None
    out = io.StringIO()
    data = io.BytesIO(json.dumps(session_start("compact")).encode())
    started, code = _processes_started(
        monkeypatch, lambda: handle("SessionStart", str(work), data, out, profile="claude")
    )
    assert (
        code == 0
        and DECISION in json.loads(out.getvalue())["hookSpecificOutput"]["additionalContext"]
    )
    assert started == []
    seq = checkpoints.latest_seq(TetherDir.at(work))
    assert checkpoints.load(TetherDir.at(work), seq).git is None


def test_in_a_git_work_tree_the_checkpoint_still_asks_git(work, monkeypatch):
    subprocess.run(["git", "init", "-q"], cwd=work, check=True)
    (work / "main.py").write_text("print(1)\n")
    tether = TetherDir.at(work)
    started, taken = _processes_started(monkeypatch, lambda: checkpoints.take(tether, "test"))
    assert [argv[0] for argv in started] == ["git", "git"]  # its drivers, then its status
    assert taken.git is not None and taken.git["dirty"] is True
