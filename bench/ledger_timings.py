"""`tether hook` and the payload with a week-long ledger (issue 28).

Run: python -m bench.ledger_timings

A week of an agent at work leaves hundreds of thousands of actions. The ledger rolls
over every 2 MB (a new segment starting with a carry line), so a reader never reads
more than one segment; this bench writes 300,000 actions as the rollover leaves them,
and, for the worst case, the same 300,000 in one file (a ledger written without the
rollover, e.g. planted by a clone), which a reader reads the end of only. Rows:

* ``tether hook PostToolUse`` (a test run reported by Claude Code's hook) as a whole
  process, answered by the supervisor as the agent meets it, with no ledger yet and
  with the 300,000 actions: the ledger must not slow the hook down;
* ``tether hook SessionStart`` with source ``compact`` (the payload with its Evidence,
  answered by the supervisor) without and with the ledger.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import tempfile
from pathlib import Path

from bench.startup import COMPACT_INPUT, TETHER, _run
from supervisor.store import ledger as ledger_module
from supervisor.store.ledger import Ledger

ACTIONS = 300_000
TOOL_INPUT = json.dumps(
    {
        "hook_event_name": "PostToolUse",
        "session_id": "bench",
        "tool_name": "Bash",
        "tool_input": {"command": "pytest -q tests/test_calc.py"},
        "tool_response": {"stdout": "....\n==== 4 passed in 0.12s ====\n", "stderr": ""},
        "tool_use_id": "toolu_bench",
    }
).encode()


def _action(n: int) -> dict[str, object]:
    checkout = {"head": "0" * 40, "tree": f"{n % 977:016x}"}
    base = {"at": "2026-11-24T10:00:00.000Z", "t": 1795500000 + n, "agent": "claude"}
    if n % 10 == 0:
        return {**base, "tool": "Edit", "paths": [f"src/module_{n % 400}.py"], "ok": True,
                "checkout": checkout}  # fmt: skip
    if n % 25 == 0:
        return {**base, "tool": "Bash", "command": f"pytest -q tests/test_{n % 30}.py", "exit": 1,
                "ok": False, "checkout": checkout,
                "verify": {"kind": "tests", "result": "1 failed, 41 passed in 3.2s"}}  # fmt: skip
    return {**base, "tool": "Bash", "command": f"grep -rn symbol_{n % 1000} src", "exit": 0,
            "ok": True, "duration_ms": 12, "checkout": checkout}  # fmt: skip


def write_rolled(root: Path, actions: int = ACTIONS) -> None:
    """``actions`` lines as the rollover leaves them: segments of 2 MB, each new one with
    its carry line (the rollover itself made each)."""
    ledger = Ledger(root)
    handle = open(ledger.path, "a")
    try:
        for n in range(actions):
            handle.write(json.dumps(_action(n), separators=(",", ":")) + "\n")
            if n % 500 == 0:
                handle.flush()
                if os.path.getsize(ledger.path) >= ledger_module.SEGMENT_BYTES:
                    handle.close()
                    ledger._roll_over()
                    handle = open(ledger.path, "a")
    finally:
        handle.close()


def write_flat(root: Path, actions: int = ACTIONS) -> None:
    with open(root / ledger_module.LEDGER_NAME, "w") as handle:
        for n in range(actions):
            handle.write(json.dumps(_action(n), separators=(",", ":")) + "\n")


def _project(kind: str) -> Path:
    work = Path(tempfile.mkdtemp(prefix=f"tether-bench-ledger-{kind}-"))
    subprocess.run(["git", "init", "-q"], cwd=work, check=True)
    (work / "calc.py").write_text("x = 1\n")
    subprocess.run(["git", "add", "."], cwd=work, check=True)
    subprocess.run(
        ["git", "-c", "user.email=b@b", "-c", "user.name=b", "commit", "-qm", "start"],
        cwd=work, check=True,
    )  # fmt: skip
    subprocess.run([TETHER, "init", "--goal", "bench"], cwd=work, check=True, capture_output=True)
    for n in range(8):
        decision = f"decision {n}: keep the 250 ms debounce in watcher.py for notes_{n}.md"
        subprocess.run(
            [TETHER, "note", "decision", decision], cwd=work, check=True, capture_output=True
        )
    if kind == "rolled":
        write_rolled(work / ".tether")
    elif kind == "flat":
        write_flat(work / ".tether")
    return work


def ledger_times(runs: int = 10) -> dict[str, list[float]]:
    """Wall seconds per command and ledger: no ledger, 300,000 rolled over, 300,000 flat;
    the runs interleaved, so a busy machine weighs on all alike."""
    from supervisor.agents import hook_client
    from supervisor.agents.hook_server import HookServer, preload

    preload(tokenizer=True)
    commands: dict[str, tuple[list[str], bytes, Path, dict[str, str]]] = {}
    servers: list[HookServer] = []
    works: list[Path] = []
    try:
        for kind in ("none", "rolled", "flat"):
            work = _project(kind)
            works.append(work)
            server = HookServer(work, preload_after=None)
            servers.append(server)
            env = {k: v for k, v in os.environ.items() if k != "TETHER_PROFILE"}
            env[hook_client.SOCKET_ENV] = server.start()
            tool = [TETHER, "hook", "PostToolUse", "--dir", str(work)]
            compact = [TETHER, "hook", "SessionStart", "--dir", str(work)]
            commands[f"tether hook PostToolUse, ledger {kind}"] = (tool, TOOL_INPUT, work, env)
            commands[f"tether hook SessionStart compact, ledger {kind}"] = (
                compact, COMPACT_INPUT, work, env,
            )  # fmt: skip
        for command, data, work, env in commands.values():
            _run(command, work, data, env)  # warm the caches (and roll the flat one over)
        times: dict[str, list[float]] = {name: [] for name in commands}
        order = list(commands)
        shuffle = random.Random(28).shuffle  # no command always follows the same one
        for _ in range(runs):
            shuffle(order)
            for name in order:
                command, data, work, env = commands[name]
                times[name].append(_run(command, work, data, env))
        return times
    finally:
        for server in servers:
            server.stop()
        for work in works:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    import statistics

    for name, values in ledger_times().items():
        print(f"{name:52} median {statistics.median(values) * 1000:6.1f} ms")
