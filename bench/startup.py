"""Start-up: the app to the agent's first frame, and the shell commands as whole processes.

* first frame: ``tether run -- sh -c 'printf MARK; sleep 100'`` in a detached
  tmux pane (160x48), from ``new-session`` until tmux's screen shows the mark
  (polled every 10 ms); the anchor is the same command without tether. In a new
  folder (the target), and in a folder of a git repository that has its
  `.tether/` already (a user's next run: the trust check asks git first).
* every process runs with its bytecode cached, as an installed tether runs: in a
  private ``PYTHONPYCACHEPREFIX`` written by a warm-up run. An environment with
  ``PYTHONDONTWRITEBYTECODE`` (this workplace's) and an editable install would
  otherwise compile every module of tether from source at every start (~40 ms of
  the first frame on a busy machine), which no installed tether does.
* ``tether hook Stop`` (a hook's JSON on stdin) and ``tether note decision ...``
  against ``python -c pass``, each a whole process, runs interleaved so load
  drifts hit all three alike. The target: the hook within 3x ``python -c pass``.
* ``tether hook SessionStart`` with source ``compact`` (the payload built, counted
  exactly, a checkpoint taken) as Claude Code runs it under ``tether run``: the
  supervisor's :class:`~supervisor.agents.hook_server.HookServer` (here in this
  process, tokenizer preloaded) answers; and alone, with no supervisor listening.

    .venv/bin/python -m bench.startup
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
TETHER = str(BIN / "tether") if (BIN / "tether").exists() else "tether"
MARK = "FIRST-FRAME-MARK"
HOOK_INPUT = b'{"hook_event_name": "Stop", "session_id": "bench", "stop_hook_active": false}'
COMPACT_INPUT = b'{"hook_event_name": "SessionStart", "source": "compact", "session_id": "bench"}'
SERVED = "tether hook SessionStart compact (supervisor answers)"
ALONE = "tether hook SessionStart compact (alone)"
SERVED_STOP = "tether hook Stop (supervisor answers)"


_PYCACHE = Path(tempfile.gettempdir()) / f"tether-bench-pycache-{os.getuid()}"


def as_installed(env=None) -> dict[str, str]:
    """``env`` (default: this one) with Python's bytecode written to and read from a
    cache of the bench's own, whatever ``PYTHONDONTWRITEBYTECODE`` says."""
    env = dict(os.environ if env is None else env)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(_PYCACHE)
    return env


def _first_frame(command: list[str], cwd: Path, timeout: float = 30.0) -> float:
    sock = f"tether-bench-start-{os.getpid()}-{time.monotonic_ns()}"
    base = ["tmux", "-L", sock, "-f", "/dev/null"]
    shell = " ".join(f"'{a}'" for a in command)
    start = time.perf_counter()
    try:
        subprocess.run(
            [*base, "new-session", "-d", "-x", "160", "-y", "48", "-c", str(cwd), shell],
            check=True,
            env={**as_installed(), "TERM": "xterm-256color"},
        )
        while time.perf_counter() - start < timeout:
            shown = subprocess.run(
                [*base, "capture-pane", "-p"], capture_output=True, text=True
            ).stdout
            if MARK in shown:
                return time.perf_counter() - start
            time.sleep(0.01)
        raise TimeoutError("the first frame never showed")
    finally:
        subprocess.run([*base, "kill-server"], capture_output=True)


NEXT_RUN = "tether, .tether/ in git"


def first_frame_times(runs: int = 5) -> dict:
    """Seconds to the agent's first frame, with tether (in a new folder and in one that
    has its `.tether/` in a git repository) and with the bare command in tmux."""
    agent = ["sh", "-c", f"printf '{MARK}'; sleep 100"]
    times: dict[str, list[float]] = {"tether": [], NEXT_RUN: [], "bare": []}
    warm = Path(tempfile.mkdtemp(prefix="tether-bench-warm-"))
    try:  # writes the bytecode cache; not counted
        _first_frame([TETHER, "run", "--", *agent], warm)
    finally:
        shutil.rmtree(warm, ignore_errors=True)
    for _ in range(runs):
        work = Path(tempfile.mkdtemp(prefix="tether-bench-start-"))
        again = Path(tempfile.mkdtemp(prefix="tether-bench-again-"))
        try:
            subprocess.run(["git", "init", "-q"], cwd=again, check=True)
            subprocess.run([TETHER, "init"], cwd=again, check=True, capture_output=True)
            times["tether"].append(_first_frame([TETHER, "run", "--", *agent], work))
            times[NEXT_RUN].append(_first_frame([TETHER, "run", "--", *agent], again))
            times["bare"].append(_first_frame(agent, work))
        finally:
            shutil.rmtree(work, ignore_errors=True)
            shutil.rmtree(again, ignore_errors=True)
    return times


def _run(command: list[str], cwd: Path, data: bytes | None, env=None) -> float:
    env = as_installed(env)
    start = time.perf_counter()
    subprocess.run(
        command,
        cwd=cwd,
        env=env,
        input=data,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=True,
    )
    return time.perf_counter() - start


def command_times(runs: int = 20) -> dict:
    """Wall seconds of ``tether hook``, ``tether note`` and ``python -c pass``, interleaved."""
    work = Path(tempfile.mkdtemp(prefix="tether-bench-cmd-"))
    try:
        subprocess.run(
            [TETHER, "init", "--goal", "benchmark"], cwd=work, check=True, capture_output=True
        )
        for n in range(8):  # a payload of a realistic size: pinned decisions to count
            decision = f"decision {n}: keep the 250 ms debounce in watcher.py for notes_{n}.md"
            subprocess.run(
                [TETHER, "note", "decision", decision], cwd=work, check=True, capture_output=True
            )
        from supervisor.agents import hook_client
        from supervisor.agents.hook_server import HookServer, preload

        preload(tokenizer=True)  # as the supervisor has a few seconds after its start
        server = HookServer(work, preload_after=None)
        alone_env = {k: v for k, v in os.environ.items() if k != hook_client.SOCKET_ENV}
        alone_env.pop("TETHER_PROFILE", None)
        served_env = {**alone_env, hook_client.SOCKET_ENV: server.start()}
        compact = [TETHER, "hook", "SessionStart", "--dir", str(work)]
        commands = {
            "python -c pass": ([sys.executable, "-c", "pass"], None, None),
            "tether hook Stop": ([TETHER, "hook", "Stop"], HOOK_INPUT, alone_env),
            SERVED_STOP: ([TETHER, "hook", "Stop"], HOOK_INPUT, served_env),
            "tether note": ([TETHER, "note", "done", "bench note"], None, None),
            SERVED: (compact, COMPACT_INPUT, served_env),
            ALONE: (compact, COMPACT_INPUT, alone_env),
        }
        times: dict[str, list[float]] = {name: [] for name in commands}
        try:
            for command, data, env in commands.values():  # warm the page and bytecode caches
                _run(command, work, data, env)
            for _ in range(runs):
                for name, (command, data, env) in commands.items():
                    times[name].append(_run(command, work, data, env))
        finally:
            server.stop()
        if server.served != 2 * (runs + 1):
            raise RuntimeError(f"the supervisor answered {server.served} of {2 * (runs + 1)}")
        return times
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    import statistics

    for name, values in command_times().items():
        print(f"{name:18} median {statistics.median(values) * 1000:6.1f} ms")
    if shutil.which("tmux"):
        frames = first_frame_times(5)
        for name, values in frames.items():
            print(
                f"first frame {name:24} median {statistics.median(values) * 1000:6.0f} ms"
                f" ({min(values) * 1000:.0f}-{max(values) * 1000:.0f})"
            )
