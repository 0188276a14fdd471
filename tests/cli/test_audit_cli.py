"""`tether audit`: the judge on files, for people checking a summary and for scripts."""

from __future__ import annotations

import json
from pathlib import Path

from tests.tether_process import run_tether

PINS = (
    "DECISION: Access tokens expire after 15 minutes; refresh tokens rotate on every use.\n"
    "Commits must never use --no-verify.\n"
    "\n"
    "- Deploy only to us-east-2.\n"
)


def files(tmp_path: Path, **texts: str) -> dict[str, str]:
    paths = {}
    for name, text in texts.items():
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        paths[name] = str(path)
    return paths


def test_the_loss_audit_of_a_summary_as_json_one_entry_a_pin(tmp_path) -> None:
    summary = (
        "## Key Technical Concepts\n"
        "- Access tokens: 30 min; refresh tokens are single-use (rotated on each use)\n"
        "- Deploys go to us-east-2 only\n"
    )
    paths = files(tmp_path, pins=PINS, summary=summary)
    done = run_tether("audit", "--pins", paths["pins"], "--summary", paths["summary"], "--json")
    assert done.returncode == 1, done.stderr
    decisions = json.loads(done.stdout)["decisions"]
    assert [d["number"] for d in decisions] == [1, 2, 3]
    assert set(decisions[0]) == {"number", "decision", "status", "missing", "changed"}
    assert decisions[0]["decision"].startswith("Access tokens expire")
    assert decisions[0]["status"] == "changed"
    assert decisions[0]["changed"] == [{"pinned": "15 minutes", "now": "30 min"}]
    assert decisions[1]["status"] == "lost" and "--no-verify" in decisions[1]["missing"]
    assert decisions[2] == {
        "number": 3, "decision": "Deploy only to us-east-2.", "status": "kept",
        "missing": [], "changed": [],
    }  # fmt: skip


def test_a_restatement_that_keeps_every_value_exits_zero_with_text_output(tmp_path) -> None:
    said = (
        "1. Access tokens live fifteen minutes; each refresh token is rotated once used.\n"
        "2. I will not use --no-verify on any commit.\n"
        "3. We deploy to us-east-2 and nowhere else.\n"
    )
    paths = files(tmp_path, pins=PINS, said=said)
    done = run_tether("audit", "--pins", paths["pins"], "--restatement", paths["said"])
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines() == [
        "1. kept: Access tokens expire after 15 minutes; refresh tokens rotate on every use.",
        "2. kept: Commits must never use --no-verify.",
        "3. kept: Deploy only to us-east-2.",
    ]


def test_a_changed_restatement_says_the_change_first(tmp_path) -> None:
    paths = files(tmp_path, pins=PINS, said="1. 15 min access tokens, rotated.\n2. Commits may "
                  "use --no-verify.\n3. Deploy only to us-west-2.")  # fmt: skip
    done = run_tether("audit", "--pins", paths["pins"], "--restatement", paths["said"])
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert lines[1] == "2. changed (changed: never → may): Commits must never use --no-verify."
    assert lines[2].startswith("3. changed (changed: us-east-2 → us-west-2)")


def test_dropped_not_pinned_from_a_folded_window(tmp_path) -> None:
    said = "The helpers live in src/utils/date.ts. Build with --max-old-space-size=4096."
    folded = [
        {"role": "user", "content": said},
        {"role": "assistant", "content": [{"type": "text", "text": "Tests pass in 412 ms."}]},
    ]
    paths = files(
        tmp_path,
        folded=json.dumps(folded),
        summary="The user pointed at src/utils/date.ts; the build needs more memory.",
        pins="Build with --max-old-space-size=4096.\n",
    )
    args = ["audit", "--folded", paths["folded"], "--summary", paths["summary"]]
    done = run_tether(*args, "--json")
    assert done.returncode == 1
    assert json.loads(done.stdout) == {
        "dropped": [
            {"term": "--max-old-space-size=4096", "said": "Build with --max-old-space-size=4096."},
            {"term": "412 ms", "said": "Tests pass in 412 ms."},
        ]
    }
    done = run_tether(*args, "--pins", paths["pins"])
    assert done.returncode == 1
    assert done.stdout == "dropped: 412 ms  (said: Tests pass in 412 ms.)\n"


def test_bad_files_give_a_clear_message_naming_the_file(tmp_path) -> None:
    paths = files(tmp_path, pins=PINS, folded='[{"role": "user", "content": "x"},\n oops]')
    done = run_tether("audit", "--pins", str(tmp_path / "nope.txt"), "--summary", paths["pins"])
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "nope.txt: cannot read it" in done.stderr
    done = run_tether("audit", "--folded", paths["folded"], "--summary", paths["pins"])
    assert "Traceback" not in done.stderr and f"{paths['folded']}, line 2: not JSON" in done.stderr
    (tmp_path / "empty").write_text("\n\n")
    done = run_tether("audit", "--pins", str(tmp_path / "empty"), "--summary", paths["pins"])
    assert "empty: no pinned decision in it" in done.stderr
    (tmp_path / "latin1").write_bytes(b"ok\ncaf\xe9\n")
    done = run_tether("audit", "--pins", str(tmp_path / "latin1"), "--summary", paths["pins"])
    assert "latin1, line 2: not UTF-8 text" in done.stderr
    done = run_tether("audit", "--pins", paths["pins"])
    assert done.returncode != 0 and "give --pins FILE with --summary FILE" in done.stderr


def test_control_characters_of_a_file_never_reach_the_terminal(tmp_path) -> None:
    paths = files(tmp_path, pins="Deploy only to us-east-2 \x1b[31mnow\x1b[0m.\n", s="nothing")
    done = run_tether("audit", "--pins", paths["pins"], "--summary", paths["s"])
    assert "\x1b" not in done.stdout and "^[" in done.stdout  # shown visibly (supervisor.shown)
