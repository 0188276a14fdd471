"""Issue 26, item 7: the shell commands say true things about what they did not do."""

from __future__ import annotations

import pytest

from supervisor.cli import main
from supervisor.store.tether_dir import TetherDir

DECISIONS = [
    "refresh tokens live in Redis with a 15 minute TTL, rotated on every use",
    "the login page keeps its layout because the mobile client scrapes it",
    "passwords are hashed with argon2id at 64 MiB memory, 3 passes",
]


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_budget_too_small_for_the_pins_says_they_were_cut(tether_dir, capsys) -> None:
    for decision in DECISIONS:
        tether_dir.add_note("decision", decision)
    work = str(tether_dir.work_dir)
    code, out, _err = run(capsys, "payload", "--budget", "10", "--dir", work)
    assert code == 0
    pinned = out.split("## Pinned decisions", 1)[1].split("\n## ", 1)[0]
    assert "(none pinned)" not in pinned
    assert "(all cut for the token budget: see below)" in pinned
    assert "pinned decisions did not fit; they hold all the same: read them in" in out


@pytest.mark.parametrize("budget", ["-5", "0", "ten"])
def test_a_budget_that_is_no_number_of_tokens_is_refused(tether_dir, capsys, budget) -> None:
    work = str(tether_dir.work_dir)
    with pytest.raises(SystemExit) as ended:
        main(["payload", "--budget", budget, "--dir", work])
    assert ended.value.code == 2
    err = capsys.readouterr().err
    assert "--budget" in err and ("positive number of tokens" in err or "not a number" in err)


def test_a_mistyped_command_gets_a_did_you_mean(capsys) -> None:
    code, _out, err = run(capsys, "stauts")
    assert code == 2
    assert "did you mean `tether status`?" in err


@pytest.fixture(name="tether_dir")
def _tether_dir(tether: TetherDir) -> TetherDir:
    return tether


def test_no_budget_is_asked_for_by_name(tether_dir, capsys) -> None:
    for decision in DECISIONS:
        tether_dir.add_note("decision", decision)
    work = str(tether_dir.work_dir)
    code, out, _err = run(capsys, "payload", "--budget", "none", "--dir", work)
    assert code == 0 and all(decision in out for decision in DECISIONS)


def test_status_says_recall_pending_only_while_a_supervisor_runs(tether_dir, capsys) -> None:
    """Issue 26, item 7: after the supervisor quit, nobody waits for the ack."""
    from supervisor.store import lock

    work = str(tether_dir.work_dir)
    tether_dir.add_decisions(["poll every 30 s"], "test")
    tether_dir.record_event(
        "injection", "supervisor", reason="rehydrate", incident=1, restate="all"
    )
    held = lock.acquire(tether_dir)
    try:
        _code, out, _err = run(capsys, "status", "--dir", work)
        assert "recall:     pending: waiting for `tether ack`" in out
    finally:
        held.release()
    _code, out, _err = run(capsys, "status", "--dir", work)
    assert "pending" not in out
    assert "recall:     not checked: the run ended before the agent's `tether ack`" in out


def test_no_to_the_tracked_tether_question_ends_the_run_as_the_readme_says(tmp_path) -> None:
    """Issue 26, item 7: answering N exits; the prompt and the README now say so. The
    `.tether/` is another person's: made with their config, committed, then cloned."""
    import os
    import select
    import subprocess
    import time

    from ptyprocess import PtyProcessUnicode

    from tests.locations import REPO
    from tests.tether_process import TETHER

    work = tmp_path / "clone"
    work.mkdir()
    git = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t"}
    git |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    theirs = {**os.environ, **git, "TETHER_CONFIG_DIR": str(tmp_path / "their-config")}
    mine = {**os.environ, **git, "TETHER_CONFIG_DIR": str(tmp_path / "my-config")}
    subprocess.run([*TETHER, "init", "--goal", "g", "--dir", str(work)], env=theirs, check=True)
    for args in (["init", "-q"], ["add", ".tether"], ["commit", "-qm", "theirs"]):
        subprocess.run(["git", *args], cwd=work, env=theirs, check=True, capture_output=True)
    child = PtyProcessUnicode.spawn(
        [*TETHER, "run", "--dir", str(work), "--", "true"], cwd=str(REPO), env=mine
    )

    def read_until(done, seconds: float = 30.0) -> str:
        said, deadline = "", time.monotonic() + seconds
        while not done(said) and time.monotonic() < deadline:
            if select.select([child.fd], [], [], 0.2)[0]:
                try:
                    said += child.read(4096)
                except EOFError:
                    break
        return said

    try:
        said = read_until(lambda s: "[y/N" in s and s.rstrip().endswith("]"))  # all of it
        assert "[y/N; N does not start the agent]" in said, said[-500:]
        child.write("n\r")
        said += read_until(lambda s: not child.isalive())
        child.wait()
    finally:
        if child.isalive():
            child.terminate(force=True)
    assert child.exitstatus == 1
    assert "not started (you answered no)" in said
    assert not list((work / ".tether" / "sessions").glob("*.cast"))
    readme = (REPO / "README.md").read_text()
    assert "Answering no (or Enter) ends `tether run` there" in readme
