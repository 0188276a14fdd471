"""Record the replay fixtures again from the pinned agents, offline, with the e2e harness.

    .venv/bin/python -m tests.e2e.record_captures            # every scenario below
    .venv/bin/python -m tests.e2e.record_captures cx171-clear cc332-crash
    make captures                                          # all, then their tmux screens

Each scenario here says what to type and what to wait for; it runs the real CLI pinned in
``agents.py`` in a 120x40 PTY (``pty_recorder.py``) against ``fake_server.py``, in an
isolated HOME (and CODEX_HOME) written by the harness (``capture_take.py``), and writes into
``tests/fixtures/captures/`` (or ``--out``): ``<name>.raw`` (the exact bytes),
``<name>.cast`` (asciicast v2, output and input), ``<name>.events.json`` (see
``capture_events.py``), ``<name>.transcript.jsonl`` (``-2`` for the session a /clear
starts) and, for Claude Code, ``<name>.hooks.jsonl``, the harness's hook log. Names
carry the agent and its version (``cc332-``, ``cx171-``), so a new version is new files
beside the old ones and the replay tests hold both.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tests.e2e import agents
from tests.e2e.agents import CLAUDE_MARKERS as CM
from tests.e2e.agents import CODEX_MARKERS as XM
from tests.e2e.capture_take import Context, Take, claude_setup, codex_setup, finish, start
from tests.e2e.fake_server import start_server
from tests.locations import CAPTURES

# Long enough that spinners and "Compacting ..." are drawn, short enough to keep files small.
REPLY_DELAY, COMPACT_DELAY = "1", "2"
CC = "cc" + agents.CLAUDE_VERSION.rsplit(".", 1)[-1]  # cc332 for 2.1.332
CX = "cx" + agents.CODEX_VERSION.split(".")[1]  # cx171 for 0.171.0
_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"


# --------------------------------------------------------------------------- Claude Code


def claude_begin(take: Take) -> None:
    take.expect("banner", rf"Claude Code v{re.escape(agents.CLAUDE_VERSION)}")
    take.expect("ready", CM["ready"])
    take.note("ready_old", "? for shortcuts")
    take.settle()


def turn(take: Take, markers: dict[str, str], prompt: str, reply: str = r"\d+") -> None:
    """A prompt and the fake model's reply, until the agent (its ``markers``) is done."""
    take.line(prompt)
    take.note("busy", "esc to interrupt")
    take.expect("reply", rf"FAKE-REPLY {reply}: ack '{re.escape(prompt[:60])}'")
    take.expect("turn_done", markers["turn_done"], keep=False)
    take.settle()


def claude_turn(take: Take, prompt: str, reply: str = r"\d+") -> None:
    turn(take, CM, prompt, reply)


def crash_while_busy(take: Take, prompt: str) -> None:
    """A SLOW prompt (the fake server holds its reply for 30 s), then SIGKILL of the agent's
    process group while it waits."""
    take.line(f"{prompt} SLOW")
    take.expect("busy", r"esc to interrupt")
    take.recorder.pump(1.5)
    take.recorder.kill()
    take.recorder.wait_exit()


def claude_compact(take: Take) -> None:
    take.line("/compact", enter_delay=1.0)
    take.note("slash_menu_entry", "Free up context by summarizing the conversation so far")
    take.note("full_repaint", data=b"\x1b[H\x1b[2K\x1b[1B\x1b[2K")
    take.note("compacting", "Compacting conversation…")
    take.note("hook_running", "Running PreCompact hooks…")
    take.expect("compact_done", r"Compacted \(ctrl\+o to see full summary\)")
    take.note("compact_boundary", "Conversation compacted (ctrl+o for history)")
    take.note("hook_done", "PreCompact] completed successfully")
    take.note("hook_done", "PostCompact] completed successfully")
    take.settle(1.5)


def claude_exit(take: Take) -> None:
    take.line("/exit", enter_delay=0.7)
    take.recorder.wait_exit()
    take.note("teardown_seq", data=b"\x1b[?2004l")
    take.note("teardown_seq", data=b"\x1b[?25h")
    take.note("exit_hint", "Resume this session with:")
    take.screen_hit("exit_hint", rf"claude\b[^\n]*--resume {_UUID}")


def cc_compact_manual(ctx: Context, name: str) -> Take:
    setup = ctx.setups[name] = claude_setup(ctx, name)
    take = start(ctx, setup, [])
    claude_begin(take)
    claude_turn(take, "hello fake model", "1")
    claude_turn(take, "second message", "2")
    claude_compact(take)
    claude_turn(take, "after compact")
    claude_exit(take)
    return take


def cc_compact_auto(ctx: Context, name: str) -> Take:
    take = start(ctx, claude_setup(ctx, name), [])
    claude_begin(take)
    claude_turn(take, "hello fake model", "1")
    claude_turn(take, "second message", "2")
    # TOOLONG: HTTP 400 "prompt is too long" once; Claude compacts and retries by itself
    take.line("please TOOLONG now")
    take.note("compacting", "Compacting conversation…")
    take.note("hook_running", "Running PreCompact hooks…")
    take.expect("reply", r"FAKE-REPLY \d+: ack 'please TOOLONG now'", timeout=40)
    take.note("compact_done", "Compacted (ctrl+o to see full summary)")
    take.note("compact_boundary", "Conversation compacted (ctrl+o for history)")
    take.note("prompt_too_long", "Prompt is too long")
    take.expect("turn_done", CM["turn_done"], keep=False)
    take.settle(1.5)
    take.line("after auto compact")
    take.expect("reply", r"FAKE-REPLY \d+: ack 'after auto compact'")
    take.expect("turn_done", CM["turn_done"], keep=False)
    take.settle()
    claude_exit(take)
    return take


def cc_clear(ctx: Context, name: str) -> Take:
    take = start(ctx, claude_setup(ctx, name), [])
    claude_begin(take)
    claude_turn(take, "hello fake model", "1")
    claude_turn(take, "second message", "2")
    take.line("/clear", enter_delay=1.0)
    take.note("slash_menu_entry", "Start a new session with empty context")
    take.note("full_repaint", data=b"\x1b[H\x1b[2K\x1b[1B\x1b[2K")
    take.expect("clear_echo", r"❯ /clear")
    take.settle(1.5)
    claude_turn(take, "after clear", "1")  # a new session: the fake server counts from 1
    claude_exit(take)
    return take


def cc_crash(ctx: Context, name: str) -> Take:
    take = start(ctx, claude_setup(ctx, name), [])
    claude_begin(take)
    claude_turn(take, "hello fake model", "1")
    crash_while_busy(take, "second message")
    take.note("exit_hint", "Resume this session with:")
    take.note("teardown_seq", data=b"\x1b[?2004l")
    return take


def _fill_turns(take: Take, levels: tuple[int, ...]) -> None:
    """Turns whose replies report ``n`` input tokens (FILLCTX=n): the footer's meter.

    Claude redraws the footer a moment after the turn ends; each turn gives it up to
    3 s to show a context note before the next prompt is typed."""
    take.watch("context_used", r"\d{1,3}% context used")
    take.watch("until_auto_compact", r"\d{1,3}% until auto-compact")
    take.watch("auto_compact_next", r"auto-compact next")
    take.watch("context_low", r"Context low \(\d{1,3}% remaining\)(?: · [^·]*?(?=\s{2}|$))?")
    for level in levels:
        claude_turn(take, f"fill FILLCTX={level}")
        if level >= 950000:
            take.maybe(FOOTER_NOTE, timeout=3.0)
            take.settle()


FOOTER_NOTE = r"% context used|% until auto-compact|auto-compact next|Context low \("


def cc_context_low(ctx: Context, name: str) -> Take:
    take = start(ctx, claude_setup(ctx, name), [])
    claude_begin(take)
    _fill_turns(take, (900000, 950000, 970000, 990000))
    claude_turn(take, "after fill")
    take.note("compacting", "Compacting conversation…")
    claude_exit(take)
    return take


def cc_context_low_noauto(ctx: Context, name: str) -> Take:
    setup = claude_setup(ctx, name)
    setup.env["DISABLE_AUTO_COMPACT"] = "1"
    take = start(ctx, setup, [])
    claude_begin(take)
    _fill_turns(take, (900000, 960000, 975000, 990000))
    take.line("after fill")
    take.expect("context_limit", CM["context_limit"])
    take.settle()
    claude_exit(take)
    return take


def cc_resume(ctx: Context, name: str) -> Take:
    setup = ctx.setups[f"{CC}-compact-manual"]
    take = start(ctx, setup, ["--continue"])
    take.expect("banner", rf"Claude Code v{re.escape(agents.CLAUDE_VERSION)}")
    take.expect("replayed_compact_done", r"Compacted \(ctrl\+o to see full summary\)")
    take.expect("ready", CM["ready"])
    take.watch("replayed_compact_boundary", r"Conversation compacted \(ctrl\+o for [^)]*\)")
    take.settle()
    claude_turn(take, "after resume")
    claude_exit(take)
    return take


# --------------------------------------------------------------------------- Codex


def codex_begin(take: Take, resuming: bool = False) -> None:
    take.note("alt_screen_enter", data=b"\x1b[?1049h")
    if resuming:
        take.note("resuming", "Resuming session…")
    take.watch("context_left", r"\d{1,3}% context left")
    take.expect("banner", rf"OpenAI Codex \(v{re.escape(agents.CODEX_VERSION)}\)")
    take.expect("ready", XM["ready"])
    take.settle()


def codex_turn(take: Take, prompt: str, reply: str = r"\d+") -> None:
    turn(take, XM, prompt, reply)


def codex_exit(take: Take) -> None:
    take.line("/quit", enter_delay=1.0)
    take.recorder.wait_exit()
    take.note("quit_status", "Shutting down...")
    take.note("alt_screen_leave", data=b"\x1b[?1049l")
    take.screen_hit("exit_token_usage", r"Token usage: [^\n]*")
    take.note("exit_hint", "To continue this session, run:")
    take.screen_hit("exit_hint", rf"codex resume {_UUID}")


def cx_compact_manual(ctx: Context, name: str) -> Take:
    setup = ctx.setups[name] = codex_setup(ctx, name)
    take = start(ctx, setup, [])
    codex_begin(take)
    codex_turn(take, "hello codex", "1")
    take.line("/compact", enter_delay=1.0)
    take.note("slash_menu_entry", "summarize conversation to prevent hitting the context limit")
    take.note("compacting", "Compacting context")
    take.expect("compact_done", XM["compacted"])
    take.settle(1.5)
    codex_turn(take, "after compact")
    codex_exit(take)
    return take


def cx_compact_auto(ctx: Context, name: str) -> Take:
    setup = codex_setup(ctx, name)
    take = start(ctx, setup, ["-c", "model_auto_compact_token_limit=5000"])
    codex_begin(take)
    codex_turn(take, "hello codex", "1")
    for prompt in ("second prompt", "third prompt"):  # each turn is over the limit: compacts
        take.line(prompt)
        take.note("compacting", "Compacting context")
        take.note("compacting_detail", "Making room to continue.")
        take.expect("compact_done", XM["compacted"])
        take.expect("reply", rf"FAKE-REPLY \d+: ack '{prompt}'")
        take.expect("turn_done", XM["turn_done"], keep=False)
        take.settle()
    codex_exit(take)
    return take


def cx_clear(ctx: Context, name: str) -> Take:
    take = start(ctx, codex_setup(ctx, name), [])
    codex_begin(take)
    codex_turn(take, "hello codex", "1")
    codex_turn(take, "second prompt", "2")
    take.line("/clear", enter_delay=1.0)
    take.note("slash_menu_entry", "clear the terminal and start a new chat")
    take.expect("ready", XM["ready"])
    take.settle(1.5)
    codex_turn(take, "after clear", "1")
    codex_exit(take)
    return take


def cx_crash(ctx: Context, name: str) -> Take:
    take = start(ctx, codex_setup(ctx, name), [])
    codex_begin(take)
    codex_turn(take, "hello codex", "1")
    crash_while_busy(take, "second prompt")
    take.note("alt_screen_leave", data=b"\x1b[?1049l")
    take.note("exit_hint", "To continue this session, run:")
    return take


def cx_hooks(ctx: Context, name: str) -> Take:
    """What Codex tells hooks: tether installs none for Codex yet, so this is the evidence."""
    take = start(ctx, codex_setup(ctx, name, hooks=True), ["--dangerously-bypass-hook-trust"])
    codex_begin(take)
    codex_turn(take, "hello codex", "1")
    take.line("/compact", enter_delay=1.0)
    take.note("compacting", "Compacting context")
    take.expect("compact_done", XM["compacted"])
    take.settle(1.5)
    take.line("/clear", enter_delay=1.0)
    take.expect("ready", XM["ready"])
    take.settle(1.5)
    codex_turn(take, "after clear", "1")
    codex_exit(take)
    return take


def cx_resume(ctx: Context, name: str) -> Take:
    setup = ctx.setups[f"{CX}-compact-manual"]
    take = start(ctx, setup, ["resume", "--last"])
    codex_begin(take, resuming=True)
    take.note("replayed_compact_done", "Context compacted")
    codex_turn(take, "after resume")
    codex_exit(take)
    return take


# --------------------------------------------------------------------------- the list


@dataclass(frozen=True)
class Scenario:
    name: str
    run: Callable[[Context, str], Take]
    description: str
    needs: str | None = None  # a scenario whose setup this one continues


SCENARIOS = [
    Scenario(
        f"{CC}-compact-manual",
        cc_compact_manual,
        "two prompts, /compact, a prompt, /exit",
    ),
    Scenario(
        f"{CC}-compact-auto",
        cc_compact_auto,
        "two prompts, a TOOLONG prompt (HTTP 400 prompt too long: Claude compacts and "
        "retries), a prompt, /exit",
    ),
    Scenario(f"{CC}-clear", cc_clear, "two prompts, /clear, a prompt, /exit"),
    Scenario(
        f"{CC}-crash",
        cc_crash,
        "a prompt, a SLOW prompt, SIGKILL of the agent's process group while it waits",
    ),
    Scenario(
        f"{CC}-context-low",
        cc_context_low,
        "prompts whose replies report 900k..990k input tokens (FILLCTX): the context meter, "
        "then a prompt, /exit",
    ),
    Scenario(
        f"{CC}-context-low-noauto",
        cc_context_low_noauto,
        "the same with DISABLE_AUTO_COMPACT=1: 'Context low', then a prompt refused, /exit",
    ),
    Scenario(
        f"{CC}-resume",
        cc_resume,
        f"claude --continue in {CC}-compact-manual's HOME and project, a prompt, /exit",
        needs=f"{CC}-compact-manual",
    ),
    Scenario(f"{CX}-compact-manual", cx_compact_manual, "a prompt, /compact, a prompt, /quit"),
    Scenario(
        f"{CX}-compact-auto",
        cx_compact_auto,
        "-c model_auto_compact_token_limit=5000: three prompts, Codex compacts before the "
        "second and the third, /quit",
    ),
    Scenario(f"{CX}-clear", cx_clear, "two prompts, /clear, a prompt, /quit"),
    Scenario(
        f"{CX}-crash",
        cx_crash,
        "a prompt, a SLOW prompt, SIGKILL of the agent's process group (node launcher and "
        "codex) while it waits",
    ),
    Scenario(
        f"{CX}-hooks",
        cx_hooks,
        "with the hook logger in CODEX_HOME/hooks.json: a prompt, /compact, /clear, a prompt, "
        "/quit",
    ),
    Scenario(
        f"{CX}-resume",
        cx_resume,
        f"codex resume --last in {CX}-compact-manual's CODEX_HOME and project, a prompt, /quit",
        needs=f"{CX}-compact-manual",
    ),
]
BY_NAME = {s.name: s for s in SCENARIOS}


def selected(names: list[str]) -> list[Scenario]:
    """The scenarios asked for, with those they continue, in the order of SCENARIOS."""
    unknown = [n for n in names if n not in BY_NAME]
    if unknown:
        raise SystemExit(f"unknown scenario(s): {', '.join(unknown)} (known: {', '.join(BY_NAME)})")
    wanted = set(names or BY_NAME)
    wanted |= {BY_NAME[n].needs for n in wanted if BY_NAME[n].needs}
    return [s for s in SCENARIOS if s.name in wanted]


def record(scenarios: list[Scenario], out: Path, keep: bool = False) -> dict[str, float]:
    """Record ``scenarios`` into ``out``; seconds per scenario."""
    bins = agents.ensure_agents()
    root = Path(tempfile.mkdtemp(prefix="tether-captures-"))
    os.environ.setdefault("FAKE_SLOW_SECONDS", "30")  # the server inherits it
    server = start_server(
        root / "server", "--reply-delay", REPLY_DELAY, "--compact-delay", COMPACT_DELAY
    )
    ctx = Context(bins, server, root, out)
    try:
        for scenario in scenarios:
            began = time.monotonic()
            take = scenario.run(ctx, scenario.name)
            finish(ctx, scenario.name, take, scenario.description)
            ctx.timings[scenario.name] = time.monotonic() - began
            size = (out / f"{scenario.name}.raw").stat().st_size
            print(f"{scenario.name}: {size} bytes, {ctx.timings[scenario.name]:.1f} s", flush=True)
    finally:
        for recorder in ctx.recorders:  # a scenario that failed half way leaves no agent
            recorder.close()
        server.stop()
        if keep:
            print(f"kept the agents' homes in {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
    return ctx.timings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="scenarios (default: all)")
    parser.add_argument("--out", type=Path, default=CAPTURES, help="where to write the files")
    parser.add_argument("--list", action="store_true", help="print the scenarios and stop")
    parser.add_argument(
        "--names", dest="print_names", action="store_true", help="print the chosen names, stop"
    )
    parser.add_argument("--keep", action="store_true", help="keep the temporary homes")
    args = parser.parse_args(argv)
    if args.list:
        for s in SCENARIOS:
            print(f"{s.name:22} {s.description}")
        return 0
    if args.print_names:
        print(" ".join(s.name for s in selected(args.names)))
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    began = time.monotonic()
    timings = record(selected(args.names), args.out, args.keep)
    print(f"recorded {len(timings)} captures in {time.monotonic() - began:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
