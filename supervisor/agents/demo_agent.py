"""The demo agent: a small scripted stand-in for a coding agent at a prompt.

It behaves like Claude Code's classic renderer where it matters to tether:
a `❯` prompt between rules with a footer under it while it waits, a spinner
while it "thinks", bracketed paste, replies with a `⏺` bullet, a context meter
that fills, `/compact` (and every few turns by itself) printing a compaction
notice and keeping only a lossy summary, `/clear` wiping, `/crash` exiting
non-zero. It makes the whole flow visible with no agent installed; it is a
fixture for people, not a stand-in for testing against the real agents.

Markers it prints (the demo profile's regexes match exactly these):
``✻ Conversation compacted · summary kept``, ``Context low (N% remaining)``,
``(context wiped)``, the prompt cue ``? for shortcuts``.
"""

from __future__ import annotations

import argparse
import os
import re
import select
import subprocess
import sys
import termios
import time
import tty
from dataclasses import dataclass, field

from supervisor import environment

ESC = "\x1b"
DIM, BOLD, RESET = f"{ESC}[2m", f"{ESC}[1m", f"{ESC}[0m"
ACCENT = f"{ESC}[38;2;215;119;87m"  # Claude-ish orange, 24-bit
GREEN = f"{ESC}[38;2;78;186;101m"
RED = f"{ESC}[38;2;255;107;128m"
GREY = f"{ESC}[38;5;244m"
SPINNER = "·✢✳✶✻✽"
CONTEXT_WINDOW = 20_000
AUTO_COMPACT_EVERY = 4
DEMO_FOLDER_ENV = environment.DEMO_FOLDER  # set by `tether demo`: the folder it runs in
PASTE_START, PASTE_END = f"{ESC}[200~", f"{ESC}[201~"
NEWLINE_MARK = "↵"  # shown in the prompt for a typed line break (one cell)

# Specifics a lossy summary drops: numbers with units, identifiers, names, quotes.
_SPECIFIC = re.compile(
    r"\b\d[\d.,]*\s*(?:ms|s|m|h|minutes?|hours?|days?|seconds?|MB|GB|KB|%)?\b"
    r"|\"[^\"]*\"|'[^']*'|`[^`]*`"
    r"|\b[A-Z][a-zA-Z0-9]+\b"
    r"|\b\w+_\w+\b"
)


def lossy(text: str) -> str:
    """What a summary of ``text`` keeps: its shape, without its specifics."""
    kept = _SPECIFIC.sub("…", text)
    kept = re.sub(r"(?:…\s*,?\s*)+", "… ", kept)
    return re.sub(r"\s+", " ", kept).strip()


@dataclass
class Memory:
    """What the demo agent 'remembers': recent turns verbatim, older ones summarised."""

    turns: list[str] = field(default_factory=list)
    summary: list[str] = field(default_factory=list)
    tokens: int = 1200
    compactions: int = 0

    def add(self, prompt: str, reply: str) -> None:
        self.turns.append(prompt)
        self.tokens += 40 * (len(prompt) // 20 + 1) + 900

    def compact(self) -> None:
        self.summary = [lossy(line) for line in self.summary + self.turns]
        self.turns = []
        self.tokens = 1200 + 60 * len(self.summary)
        self.compactions += 1

    def wipe(self) -> None:
        self.turns, self.summary, self.tokens = [], [], 1200

    @property
    def percent_left(self) -> int:
        return max(0, 100 - (100 * self.tokens) // CONTEXT_WINDOW)


class DemoAgent:
    def __init__(self, delay: float, auto_compact_every: int) -> None:
        self.delay = delay
        self.auto_compact_every = auto_compact_every
        self.memory = Memory()
        self.turn = 0
        self.out = sys.stdout

    # -- output ------------------------------------------------------------

    def write(self, text: str) -> None:
        self.out.write(text.replace("\n", "\r\n"))
        self.out.flush()

    def cols(self) -> int:
        try:
            return os.get_terminal_size(sys.stdout.fileno()).columns
        except OSError:
            return 80

    def banner(self) -> None:
        self.write(
            f"{ACCENT}✻{RESET} {BOLD}Welcome to the tether demo agent{RESET}\n"
            f"{DIM}  A scripted stand-in for a coding agent. Try a prompt, pin a decision\n"
            f"  (start a line with DECISION:), /compact, /clear, /crash or /exit.{RESET}\n"
            f"{self.folder_note()}\n"
        )

    @staticmethod
    def folder_note() -> str:
        """Where `tether demo` keeps its state, said on screen (it is not the user's folder)."""
        folder = environment.current().demo_folder
        if not folder:
            return ""
        home = os.path.expanduser("~")
        shown = "~" + folder[len(home) :] if home != "/" and folder.startswith(home) else folder
        return (
            f"{DIM}  The demo's state is in {shown}/.tether/ (cd there for `tether status`);\n"
            f"  `tether demo --fresh` starts afresh.{RESET}\n"
        )

    def footer(self) -> str:
        left = self.memory.percent_left
        if left < 25:
            meter = f"{RED}Context low ({left}% remaining) · /compact to free up space{RESET}"
        else:
            meter = f"{DIM}{100 - left}% context used{RESET}"
        return f"  {DIM}? for shortcuts{RESET}  {meter}"

    def draw_prompt(self, text: str = "") -> None:
        rule = f"{GREY}{'─' * max(10, self.cols() - 1)}{RESET}"
        # Rule, prompt, rule, footer; then park the cursor after the typed text.
        self.write(f"{rule}\n{ACCENT}❯{RESET} {text}\n{rule}\n{self.footer()}")
        self.write(f"{ESC}[2A\r{ESC}[{2 + len(text)}C")

    def clear_prompt(self) -> None:
        self.write(f"\r{ESC}[1A{ESC}[J")

    # -- behaviour ---------------------------------------------------------

    def think(self) -> bool:
        """Spin for a while; False if interrupted with ctrl+c or esc."""
        start = time.monotonic()
        frame = 0
        self.write(f"{ESC}[?25l")
        interrupted = False
        while time.monotonic() - start < self.delay:
            glyph = SPINNER[frame % len(SPINNER)]
            self.write(f"\r{ACCENT}{glyph}{RESET} Thinking… {DIM}(esc to interrupt){RESET}{ESC}[K")
            frame += 1
            ready, _, _ = select.select([sys.stdin], [], [], 0.08)
            if ready:
                data = os.read(sys.stdin.fileno(), 1024)
                if b"\x03" in data or data == b"\x1b":
                    interrupted = True
                    break
        self.write(f"\r{ESC}[K{ESC}[?25h")
        return not interrupted

    def reply(self, prompt: str) -> str:
        lower = prompt.lower()
        if ".tether/" in prompt and ("re-read" in lower or "reread" in lower):
            return self.rehydrate(prompt)
        if prompt.startswith("Recall check from tether"):
            return self.restate_again(prompt)
        if ".tether/" in prompt:
            return "Understood: I will keep my state in .tether/ with `tether note`."
        if lower.startswith("decision:"):
            return f"Noted. {prompt.strip()}"
        if "remember" in lower or lower.startswith("/memory"):
            lines = ["Here is what I remember:"]
            lines += [f"  (summary) {line}" for line in self.memory.summary]
            lines += [f"  {line}" for line in self.memory.turns]
            if len(lines) == 1:
                lines.append("  nothing at all.")
            return "\n".join(lines)
        return f"Working on it: {prompt.strip()[:200]}"

    def rehydrate(self, payload: str) -> str:
        """Read the recovery payload like a real agent would, and say so on disk."""
        sections: dict[str, list[str]] = {}
        current = ""
        for line in payload.splitlines():
            if line.startswith("## "):
                current = line[3:].strip().lower()
                sections[current] = []
            elif line.strip() and current:
                sections[current].append(line.strip())

        def first(prefix: str) -> str:
            for title, lines in sections.items():
                if title.startswith(prefix) and lines:
                    return lines[0].lstrip("-0123456789. ")
            return "?"

        decisions = [
            line.lstrip("-0123456789. ")
            for title, lines in sections.items()
            if title.startswith("pinned")
            for line in lines
            if not line.startswith("(")  # "(none pinned)"
        ]
        # TETHER_DEMO_FORGET=2: leave decision 2 out of the first restatement, as a model
        # that lost it would; the re-send after the partial recall check brings it back.
        forget = {int(n) for n in re.findall(r"\d+", environment.current().demo_forget)}
        kept = [d for n, d in enumerate(decisions, start=1) if n not in forget]
        result = self.ack("Restated after the recovery: " + " | ".join(kept or ["(none)"]))
        return (
            f"Rehydrated: read the recovery payload ({len(payload.splitlines())} lines).\n"
            f"Goal: {first('goal')[:100]}\n"
            f"Pinned decisions: {len(decisions)} — {(decisions or ['none'])[0][:100]}\n"
            f"Next step: {first('next')[:100]}\n"
            f"{result}"
        )

    def ack(self, restatement: str) -> str:
        """Send the restatement with `tether ack`, as the payload asks; its verdict in short."""
        try:
            done = subprocess.run(
                [sys.executable, "-m", "supervisor.cli", "ack", restatement],
                capture_output=True,
                text=True,
                timeout=10,
                check=False,
            )
        except (OSError, subprocess.SubprocessError) as error:
            return f"tether ack failed: {error}"
        said = (done.stdout or done.stderr).strip()
        return said.splitlines()[0][:160] if said else "tether ack said nothing"

    def restate_again(self, prompt: str) -> str:
        """A re-send of the decisions the recall check missed: restate exactly those."""
        decisions = [
            re.sub(r"^\d+\.\s*", "", line.strip())
            for line in prompt.splitlines()
            if re.match(r"^\d+\.\s", line.strip())
        ]
        result = self.ack("Restated again: " + " | ".join(decisions or ["(none)"]))
        return f"Restated the {len(decisions)} missing decisions.\n{result}"

    def submit(self, text: str) -> bool:
        """Handle one submitted input; False when the agent should exit."""
        command = text.strip()
        self.clear_prompt()
        shown = command.splitlines()[0] if command else ""
        extra = len(command.splitlines()) - 1
        more = f" {DIM}[+{extra} pasted lines]{RESET}" if extra > 0 else ""
        self.write(f"{GREY}❯{RESET} {shown}{more}\n")
        if command in ("/exit", "/quit"):
            self.write(f"{DIM}Goodbye.{RESET}\n")
            return False
        if command == "/crash":
            self.write(f"{RED}panic: simulated crash in the demo agent{RESET}\n")
            sys.stdout.flush()
            os._exit(3)
        if command == "/clear":
            self.memory.wipe()
            self.write(f"{ESC}[2J{ESC}[3J{ESC}[H")
            self.write(f"{DIM}(context wiped){RESET}\n\n")
            return True
        if command.startswith("/compact"):
            self.compact()
            return True
        if not command:
            return True
        if not self.think():
            self.write(f"{DIM}  ⎿  Interrupted by user{RESET}\n\n")
            return True
        answer = self.reply(command)
        self.memory.add(command, answer)
        self.turn += 1
        lines = answer.splitlines() or [""]
        self.write(f"{GREEN}⏺{RESET} {lines[0]}\n")
        for line in lines[1:]:
            self.write(f"  {line}\n")
        self.write("\n")
        if self.auto_compact_every and self.turn % self.auto_compact_every == 0:
            self.compact(auto=True)
        return True

    def compact(self, auto: bool = False) -> None:
        self.write(f"{ACCENT}✶{RESET} Compacting conversation…\n")
        time.sleep(min(self.delay, 0.5))
        self.memory.compact()
        reason = " (auto)" if auto else ""
        self.write(f"{DIM}✻ Conversation compacted · summary kept{reason}{RESET}\n\n")

    # -- input loop ----------------------------------------------------------

    def run(self) -> int:
        self.write(f"{ESC}[?2004h{ESC}]0;tether demo agent\a")
        self.banner()
        buffer = ""
        pending = b""
        in_paste = False
        self.draw_prompt()
        while True:
            ready, _, _ = select.select([sys.stdin], [], [], 0.5)
            if not ready:
                continue
            chunk = os.read(sys.stdin.fileno(), 65536)
            if not chunk:
                return 0
            pending += chunk
            try:
                text = pending.decode("utf-8")
                pending = b""
            except UnicodeDecodeError as error:
                if error.start >= len(pending) - 3:
                    text, pending = pending[: error.start].decode(), pending[error.start :]
                else:
                    text, pending = pending.decode("utf-8", "replace"), b""
            index = 0
            while index < len(text):
                if in_paste:
                    end = text.find(PASTE_END, index)
                    if end < 0:
                        buffer += text[index:]
                        break
                    buffer += text[index:end]
                    index = end + len(PASTE_END)
                    in_paste = False
                    self.write(buffer.splitlines()[-1][-40:] if buffer.strip() else "")
                    continue
                if text.startswith(PASTE_START, index):
                    in_paste = True
                    index += len(PASTE_START)
                    continue
                char = text[index]
                index += 1
                if char in "\r\n":
                    if not self.submit(buffer.replace("\r", "\n")):
                        return 0
                    buffer = ""
                    self.draw_prompt()
                elif char == "\x03":
                    if buffer:
                        buffer = ""
                        self.clear_prompt()
                        self.draw_prompt()
                    else:
                        self.clear_prompt()
                        self.write(f"{DIM}Interrupted. /exit to quit.{RESET}\n")
                        self.draw_prompt()
                elif char == "\x04" and not buffer:
                    return 0
                elif char in "\x7f\x08":
                    if buffer:
                        buffer = buffer[:-1]
                        self.write("\b \b")
                elif char == ESC and text[index : index + 1] in ("\r", "\n"):
                    # Alt+Enter (ESC CR), as in Claude Code: a new line, not a submit.
                    index += 1
                    buffer += "\n"
                    self.write(NEWLINE_MARK)
                elif char == ESC:
                    # Swallow the rest of an escape sequence (arrows and the like).
                    match = re.match(r"(\[[0-9;?]*[ -/]*[@-~]|O.|.)?", text[index:])
                    index += len(match.group(0)) if match else 0
                elif char >= " ":
                    buffer += char
                    self.write(char)


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    parser.add_argument(
        "--delay",
        type=float,
        default=float(environment.current().demo_delay or "0.8"),
        help="seconds of 'thinking' per reply (env TETHER_DEMO_DELAY)",
    )
    parser.add_argument(
        "--auto-compact-every",
        type=int,
        default=int(environment.current().demo_auto_compact or str(AUTO_COMPACT_EVERY)),
        help="compact by itself every N turns (0 = never)",
    )


def run(args: argparse.Namespace) -> int:
    if not sys.stdin.isatty():
        print("tether demo-agent: needs a terminal; run it with `tether demo`", file=sys.stderr)
        return 2
    agent = DemoAgent(args.delay, args.auto_compact_every)
    saved = termios.tcgetattr(sys.stdin.fileno())
    tty.setraw(sys.stdin.fileno())
    try:
        return agent.run()
    finally:
        sys.stdout.write(f"{ESC}[?2004l")
        sys.stdout.flush()
        termios.tcsetattr(sys.stdin.fileno(), termios.TCSADRAIN, saved)
