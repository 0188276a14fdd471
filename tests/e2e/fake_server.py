"""A fake model server for the end-to-end tier (standard library only).

Speaks just enough of the Anthropic Messages API (streaming SSE), the OpenAI
Responses API (streaming SSE) and OpenAI chat completions (streaming SSE chunks, then
``[DONE]``) for the real Claude Code, Codex and GitHub Copilot CLIs to run offline
against it. Replies are deterministic; every request is logged as one
JSON line (secret headers redacted, full body kept) so tests can assert what
the model received.

    python tests/e2e/fake_server.py [--port 0] [--port-file F] [--log requests.jsonl]

On start it prints one JSON line ``{"port": N, "url": "http://127.0.0.1:N", "pid": P}``
(and writes the same object to ``--port-file`` if given). SIGTERM or SIGINT stops it.

Reply rules, checked in this order (see agents-offline.md):

=============================  ===============================================
request                        reply
=============================  ===============================================
Claude compaction prompt       ``<analysis>..</analysis><summary>FAKE-COMPACT-SUMMARY: ..``
Codex compaction prompt        ``FAKE-CODEX-COMPACT-SUMMARY: ..`` (the last user item says
                               "checkpoint compaction" or "handoff summary")
Copilot compaction prompt      ``FAKE-COPILOT-COMPACT-SUMMARY: ..`` (the last user message asks
                               to "create a detailed summary of the conversation so far")
aider summarizer               ``FAKE-AIDER-SUMMARY: ..`` (its system message: "summarize this
                               partial conversation about programming")
title request (either agent)   ``{"title": "Fake session title"}`` / ``Fake session title``
Claude tool_result             ``TOOL-RESULT-SEEN: <first 80 chars of the result>``
tether's recovery payload      with ``--ack`` (or ``--ack-drop N``, ``--ack-change N``): a
(asks for ``tether ack``)      tool call running ``tether ack '<restatement>'``: each pinned
                               decision it lists under its number, in other words (values
                               as words, "since" for "because"), except decision N in a
                               full payload (dropped, or restated with its first value
                               doubled); a re-send is restated whole. Claude: ``Bash``;
                               Codex: ``exec_command``.
                               A prompt that asks for ``tether ack`` of a payload already
                               in the context (tether's prompt to act on the SessionStart
                               hook's) restates the newest payload in the request
``RUN:<cmd>``                  a streamed tool call running ``cmd``: Claude ``Bash`` with
                               ``{"command": cmd}``, Codex ``exec_command``
``FILLCTX`` / ``FILLCTX=<n>``  a normal reply reporting ``n`` (default $FAKE_FILL_TOKENS
                               or 990000) input tokens
``TOOLONG`` (first time per    HTTP 400 ``prompt is too long: N tokens > 1000000 maximum``
distinct prompt)               (Claude: invalid_request_error; Codex: context_length_exceeded)
``CACHEWRITE`` (Claude)        the reply reports 5,000 ``cache_creation_input_tokens``
``SLOW``                       the normal reply, delayed by $FAKE_SLOW_SECONDS (default 30)
anything else                  ``FAKE-REPLY <n>: ack '<first 60 chars of the last user text>'``
=============================  ===============================================

The compaction summaries are deliberately LOSSY: they mention that a decision
about refresh tokens was made, but none of its specifics (store, lifetime,
rotation policy, reason), as real summaries do after a few folds.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import itertools
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

CLAUDE_COMPACT_SUMMARY = (
    "<analysis>\n"
    "The conversation was short: a greeting, an acknowledgement, and a design note from the user.\n"
    "</analysis>\n"
    "<summary>\n"
    "FAKE-COMPACT-SUMMARY:\n"
    "1. Primary Request and Intent: the user is working on the authentication part of the\n"
    "   project and exchanged a few short messages with the assistant.\n"
    "2. Key Decisions: the user recorded a decision about how refresh tokens are stored and\n"
    "   handled; the details were discussed earlier in the conversation.\n"
    "3. Pending Tasks: none recorded.\n"
    "4. Current Work: waiting for the user's next instruction.\n"
    "</summary>"
)

CODEX_COMPACT_SUMMARY = (
    "FAKE-CODEX-COMPACT-SUMMARY: the user is working on the authentication part of the project "
    "and exchanged a few short messages with the assistant. A decision about how refresh tokens "
    "are stored and handled was recorded earlier; the details were discussed in the conversation. "
    "Nothing is pending."
)

COPILOT_COMPACT_SUMMARY = (
    "FAKE-COPILOT-COMPACT-SUMMARY:\n<overview>\nThe user is working on the authentication part "
    "of the project and exchanged a few short messages with the assistant.\n</overview>\n"
    "<history>\nA decision about how refresh tokens are stored and handled was recorded; the "
    "details were discussed earlier in the conversation.\n</history>\n"
    "<work_done>\nNothing yet.\n</work_done>"
)
COPILOT_COMPACT_MARK = "Please create a detailed summary of the conversation so far"
# Gemini CLI's /compress summary (through GOOGLE_GEMINI_BASE_URL, not its BeforeModel hook).
GEMINI_SUMMARY = (
    "<state_snapshot>FAKE-GEMINI-SUMMARY: the user works on authentication; a decision about "
    "refresh tokens was made.</state_snapshot>"
)
# aider's summarizer (aider/prompts.py `summarize`), its system message.
AIDER_SUMMARY_MARK = "summarize this partial conversation about programming"
AIDER_SUMMARY = (
    "FAKE-AIDER-SUMMARY: we talked about the authentication part of the project; a decision "
    "about how refresh tokens are stored was recorded."
)

TITLE = "Fake session title"

CLAUDE_COMPACT_MARK = "Your task is to create a detailed summary of the conversation so far"
SECRET_HEADERS = {"authorization", "x-api-key", "api-key", "cookie", "proxy-authorization"}
# Wrappers Claude Code and Codex put around context they inject into user turns.
_INJECTED = re.compile(
    r"<(system-reminder|local-command-[a-z]+|command-[a-z]+)>.*?</\1>", re.DOTALL
)
_TAG_WRAPPED = re.compile(r"^\s*<([A-Za-z_][\w -]*)>.*</\1>\s*$", re.DOTALL)


def _redact(headers: Any) -> dict[str, str]:
    """Header names lower-cased (HTTP/1.1 clients differ), secrets replaced."""
    out = {}
    for k, v in headers.items():
        k = k.lower()
        out[k] = "<redacted>" if k in SECRET_HEADERS else v
    return out


def _one_line(text: str, n: int) -> str:
    return " ".join(text.split())[:n]


# --------------------------------------------------------------------------- Anthropic helpers


def _claude_texts(message: dict) -> list[str]:
    content = message.get("content")
    if isinstance(content, str):
        return [content]
    out = []
    for block in content or []:
        if isinstance(block, dict) and block.get("type") == "text":
            out.append(block.get("text", ""))
    return out


def _claude_user_text(message: dict) -> str:
    """The typed part of a user message: its last text block once injected wrappers
    (system reminders, slash-command records) are removed. After a compaction Claude Code
    merges the summary and the next prompt into one message; the prompt is the last block."""
    texts = [_INJECTED.sub("", t).strip() for t in _claude_texts(message)]
    texts = [t for t in texts if t]
    return texts[-1] if texts else ""


def _has_tool_result(message: dict) -> bool:
    content = message.get("content")
    return isinstance(content, list) and any(
        isinstance(b, dict) and b.get("type") == "tool_result" for b in content
    )


def _tool_result_text(message: dict) -> str:
    for block in message.get("content") or []:
        if isinstance(block, dict) and block.get("type") == "tool_result":
            c = block.get("content")
            if isinstance(c, str):
                return c
            if isinstance(c, list):
                return " ".join(x.get("text", "") for x in c if isinstance(x, dict))
    return ""


def _system_text(body: dict) -> str:
    system = body.get("system")
    if isinstance(system, str):
        return system
    if isinstance(system, list):
        return "\n".join(b.get("text", "") for b in system if isinstance(b, dict))
    return ""


# --------------------------------------------------------------------------- Codex helpers


def _codex_item_text(item: dict) -> str:
    content = item.get("content")
    if isinstance(content, str):
        return content
    return "\n".join(
        c.get("text", "") for c in content or [] if isinstance(c, dict) and "text" in c
    )


def _codex_user_items(body: dict) -> list[str]:
    inp = body.get("input")
    if isinstance(inp, str):
        return [inp]
    return [
        _codex_item_text(it)
        for it in inp or []
        if isinstance(it, dict)
        and it.get("role") == "user"
        and it.get("type", "message") == "message"
    ]


def _codex_tool_output(body: dict) -> str | None:
    """The output of the tool call the request answers, when its last input item is one."""
    inp = body.get("input")
    last = inp[-1] if isinstance(inp, list) and inp else None
    if not isinstance(last, dict) or last.get("type") != "function_call_output":
        return None
    output = last.get("output")
    if isinstance(output, list):
        return " ".join(o.get("text", "") for o in output if isinstance(o, dict))
    return str(output or "")


def _is_codex_context(text: str) -> bool:
    s = text.strip()
    return not s or bool(_TAG_WRAPPED.match(s)) or s.startswith("# AGENTS.md")


def claude_last_prompt(body: dict) -> str:
    """What the user typed last, as the fake server sees it in a Messages request body."""
    users = [
        m for m in body.get("messages") or [] if isinstance(m, dict) and m.get("role") == "user"
    ]
    return _claude_user_text(users[-1]) if users else ""


def codex_last_prompt(body: dict) -> str:
    """What the user typed last, as the fake server sees it in a Responses request body."""
    typed = [t for t in _codex_user_items(body) if not _is_codex_context(t)]
    return typed[-1] if typed else ""


# --------------------------------------------------------------------------- server


class State:
    def __init__(
        self,
        log_path: str | None,
        reply_delay: float,
        compact_delay: float,
        ack_drop: int | None = None,
        ack: bool = False,
        ack_change: int | None = None,
    ):
        # answer recovery payloads with `tether ack`
        self.ack = ack or ack_drop is not None or ack_change is not None
        self.ack_drop = ack_drop
        self.ack_change = ack_change
        self.lock = threading.Lock()
        self.seq = itertools.count(1)
        self.log_path = log_path
        self.reply_delay = reply_delay
        self.compact_delay = compact_delay
        self.toolong_seen: set[str] = set()

    def log(self, entry: dict) -> None:
        if not self.log_path:
            return
        line = json.dumps(entry, ensure_ascii=False) + "\n"
        with self.lock, open(self.log_path, "a", encoding="utf-8") as f:
            f.write(line)
            f.flush()

    def first_toolong(self, key: str) -> bool:
        with self.lock:
            if key in self.toolong_seen:
                return False
            self.toolong_seen.add(key)
            return True


def _fill_tokens(text: str) -> int | None:
    """The context size a ``FILLCTX`` prompt asks the reply to report. Not in tether's own
    payload: its loss audit may quote the FILLCTX prompt a fold dropped, and that quote is
    the test's word, not a new order to fill the context."""
    if "Context check from tether" in text or "Recovery from tether" in text:
        return None
    m = re.search(r"FILLCTX(?:=(\d+))?", text)
    if not m:
        return None
    return int(m.group(1) or os.environ.get("FAKE_FILL_TOKENS", "990000"))


_NUMBERED = re.compile(r"^\s*(\d+)\.\s+(.+)$")


_SMALL = """
    zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen
    fifteen sixteen seventeen eighteen nineteen
""".split()  # noqa: SIM905 (a word list reads better as words)
_TENS = {2: "twenty", 3: "thirty", 4: "forty", 5: "fifty", 6: "sixty", 7: "seventy"}
_VALUE = re.compile(r"\b(\d+) (minute|second|hour|day)(s?)\b")


def _in_words(n: int) -> str:
    if n < 20:
        return _SMALL[n]
    tens, ones = divmod(n, 10)
    return _TENS.get(tens, str(n - ones)) + (f"-{_SMALL[ones]}" if ones else "")


def paraphrase(decision: str, *, change: bool = False) -> str:
    """``decision`` in other words, as a model restates it: its values as words
    ("fifteen-minute TTL", "thirty minutes"), "since" for "because", its clauses rejoined;
    with ``change``, its first value doubled (the value a model misremembers)."""
    changed = False

    def value(match: re.Match) -> str:
        nonlocal changed
        n = int(match.group(1))
        if change and not changed:
            n, changed = n * 2, True
        unit, plural = match.group(2), match.group(3)
        return f"{_in_words(n)} {unit}s" if plural else f"{_in_words(n)}-{unit}"

    text = _VALUE.sub(value, decision)
    text = re.sub(r"\bbecause\b", "since", text).replace(", ", "; ")
    return "we hold that " + text


def recall_ack_command(text: str, drop: int | None, change: int | None = None) -> str | None:
    """``tether ack '<restatement>'`` when ``text`` is tether's payload asking for one.

    The restatement is each pinned decision the payload lists under its number, in other
    words (:func:`paraphrase`), without decision ``drop``, or with decision ``change``'s
    first value changed, in a full recovery payload; a re-send ("Recall check from
    tether") is restated whole, values as pinned.
    """
    if "tether ack" not in text:
        return None
    resend = "Recall check from tether" in text
    if not resend and "## Pinned decisions" not in text:
        return None
    decisions: list[tuple[int, str]] = []
    section = resend
    for line in text.splitlines():
        if line.startswith("## "):
            section = line.startswith("## Pinned decisions")
            continue
        match = _NUMBERED.match(line)
        if section and match:
            decisions.append((int(match.group(1)), match.group(2).strip()))
    kept = [
        f"{n}. {paraphrase(d, change=not resend and n == change)}."
        for n, d in decisions
        if resend or n != drop
    ]
    restatement = "Restated: " + " ".join(kept or ["(no decisions)"])
    return "tether ack " + shlex.quote(restatement)


def decide_claude(body: dict, state: State) -> dict:
    """Pick the reply for an Anthropic Messages request: a dict with 'rule' and details."""
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    users = [m for m in messages if m.get("role") == "user"]
    last = users[-1] if users else {}
    last_raw = "\n".join(_claude_texts(last))
    if CLAUDE_COMPACT_MARK in last_raw or any(
        CLAUDE_COMPACT_MARK in "\n".join(_claude_texts(m)) for m in users[-2:]
    ):
        return {
            "rule": "claude-compact",
            "text": CLAUDE_COMPACT_SUMMARY,
            "delay": state.compact_delay,
        }
    if "title" in _system_text(body).lower() and not body.get("tools") and len(messages) <= 2:
        return {"rule": "title", "text": json.dumps({"title": TITLE})}
    if _has_tool_result(last) and not _claude_user_text(last):
        return {
            "rule": "tool-result",
            "text": "TOOL-RESULT-SEEN: " + _one_line(_tool_result_text(last), 80),
        }
    text = _claude_user_text(last)
    ack = recall_ack_command(text, state.ack_drop, state.ack_change) if state.ack else None
    if state.ack and ack is None and "tether ack" in text:  # the payload is in the context
        held = [t for m in messages for t in _claude_texts(m) if "## Pinned decisions" in t]
        ack = recall_ack_command(held[-1], state.ack_drop, state.ack_change) if held else None
    if ack:
        return {"rule": "ack", "tool_command": ack}
    m = re.search(r"RUN:(.+)", text)
    if m:
        return {"rule": "run", "tool_command": m.group(1).strip()}
    n = sum(1 for m_ in users if _claude_user_text(m_))
    reply = {"rule": "reply", "text": f"FAKE-REPLY {n}: ack '{_one_line(text, 60)}'"}
    fill = _fill_tokens(text)
    if "CACHEWRITE" in text:
        reply["cache_write"] = 5000
    if fill is not None:
        reply.update(rule="fillctx", input_tokens=fill)
    elif "TOOLONG" in text and state.first_toolong("claude:" + text):
        return {"rule": "toolong", "status": 400}
    if "SLOW" in text:
        reply["delay"] = float(os.environ.get("FAKE_SLOW_SECONDS", "30"))
    return reply


def decide_codex(body: dict, state: State) -> dict:
    items = _codex_user_items(body)
    last_raw = items[-1] if items else ""
    low = last_raw.lower()
    # The compaction prompt: "You are performing a CONTEXT CHECKPOINT COMPACTION. Create a
    # handoff summary ..." (0.171.0). Not any text that mentions a summary and a checkpoint:
    # tether's rehydrate payload does, and must get a normal reply.
    if "checkpoint compaction" in low or "handoff summary" in low:
        return {
            "rule": "codex-compact",
            "text": CODEX_COMPACT_SUMMARY,
            "delay": state.compact_delay,
        }
    instr = str(body.get("instructions") or "")
    if "task title" in low or ("title" in instr.lower() and not body.get("tools")):
        return {"rule": "title", "text": TITLE}
    typed = [t for t in items if not _is_codex_context(t)]
    text = typed[-1] if typed else ""
    output = _codex_tool_output(body)
    if output is not None:
        return {"rule": "tool-result", "text": "TOOL-RESULT-SEEN: " + _one_line(output, 80)}
    ack = recall_ack_command(text, state.ack_drop, state.ack_change) if state.ack else None
    if ack:
        return {"rule": "ack", "tool_command": ack}
    m = re.search(r"RUN:(.+)", text)
    if m:
        return {"rule": "run", "tool_command": m.group(1).strip()}
    reply = {"rule": "reply", "text": f"FAKE-REPLY {len(typed)}: ack '{_one_line(text, 60)}'"}
    fill = _fill_tokens(text)
    if fill is not None:
        reply.update(rule="fillctx", input_tokens=fill)
    elif "TOOLONG" in text and state.first_toolong("codex:" + text):
        return {"rule": "toolong", "status": 400}
    if "SLOW" in text:
        reply["delay"] = float(os.environ.get("FAKE_SLOW_SECONDS", "30"))
    return reply


_COPILOT_WRAPPERS = re.compile(r"<(current_datetime|system_reminder|reminder)>.*?</\1>", re.DOTALL)


def _chat_text(message: dict) -> str:
    content = message.get("content")
    if isinstance(content, list):
        content = "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return content if isinstance(content, str) else ""


def chat_last_prompt(body: dict) -> str:
    """What the user typed last, as the fake server sees it in a chat completions body
    (Copilot wraps the time and hook context in tags around it)."""
    users = [
        m for m in body.get("messages") or [] if isinstance(m, dict) and m.get("role") == "user"
    ]
    return _COPILOT_WRAPPERS.sub("", _chat_text(users[-1])).strip() if users else ""


def decide_chat(body: dict, state: State) -> dict:
    """Pick the reply for an OpenAI chat completions request (GitHub Copilot CLI, aider)."""
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    users = [m for m in messages if m.get("role") == "user"]
    last_raw = _chat_text(users[-1]) if users else ""
    if COPILOT_COMPACT_MARK in last_raw:
        return {
            "rule": "copilot-compact",
            "text": COPILOT_COMPACT_SUMMARY,
            "delay": state.compact_delay,
        }
    system = " ".join(_chat_text(m) for m in messages if m.get("role") == "system")
    if AIDER_SUMMARY_MARK in system:
        return {"rule": "aider-summary", "text": AIDER_SUMMARY, "delay": state.compact_delay}
    if messages and messages[-1].get("role") == "tool":  # the result of our RUN: tool call
        result = _one_line(_chat_text(messages[-1]), 80)
        return {"rule": "tool-result", "text": "TOOL-RESULT-SEEN: " + result}
    text = chat_last_prompt(body)
    edit = re.search(r"EDIT:(\S+)", text)
    if edit:  # aider: a SEARCH/REPLACE block creating the file (an edit moves its history)
        name = edit.group(1)
        body_lines = "\n".join(f"line {i}: the fake model wrote this" for i in range(40))
        block = f"{name}\n<<<<<<< SEARCH\n=======\n{body_lines}\n>>>>>>> REPLACE\n"
        return {"rule": "edit", "text": f"FAKE-EDIT of {name}:\n\n{block}"}
    run = re.search(r"RUN:(.+)", text)
    if run:
        return {"rule": "run", "tool_command": run.group(1).strip()}
    typed = sum(1 for m in users if _COPILOT_WRAPPERS.sub("", _chat_text(m)).strip())
    reply = {"rule": "reply", "text": f"FAKE-REPLY {typed}: ack '{_one_line(text, 60)}'"}
    fill = _fill_tokens(text)
    if fill is not None:
        reply.update(rule="fillctx", input_tokens=fill)
    if "SLOW" in text:
        reply["delay"] = float(os.environ.get("FAKE_SLOW_SECONDS", "30"))
    return reply


def gemini_last_prompt(body: dict) -> str:
    """The last user text of a Gemini ``generateContent`` body."""
    contents = [c for c in body.get("contents") or [] if isinstance(c, dict)]
    users = [c for c in contents if c.get("role") == "user"]
    parts = users[-1].get("parts") if users else []
    texts = [str(p.get("text", "")) for p in parts or [] if isinstance(p, dict)]
    return "\n".join(t for t in texts if t)


def decide_gemini(body: dict) -> tuple[str, str]:
    """A Gemini CLI turn or its /compress summary (and the summary's check): (rule, text)."""
    last = gemini_last_prompt(body)
    if "<state_snapshot>" in last:
        return "gemini-summary", GEMINI_SUMMARY
    users = [
        c for c in body.get("contents") or [] if isinstance(c, dict) and c.get("role") == "user"
    ]
    return "gemini-reply", f"FAKE-GEMINI-REPLY {len(users)}: ack '{_one_line(last[-40:], 40)}'"


def _chunks(text: str, n: int = 3) -> list[str]:
    if not text:
        return [""]
    size = max(1, -(-len(text) // n))
    return [text[i : i + size] for i in range(0, len(text), size)]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "tether-fake-model/1"
    state: State  # set on the class by serve()

    def log_message(self, fmt: str, *args: Any) -> None:  # quiet
        pass

    # ------------------------------------------------------------ plumbing
    def _read_body(self) -> tuple[bytes, Any]:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if self.headers.get("Content-Encoding", "").lower() == "gzip":
            with contextlib.suppress(OSError):
                raw = gzip.decompress(raw)
        if not raw:
            return raw, None
        try:
            return raw, json.loads(raw)
        except ValueError:
            return raw, raw.decode("utf-8", "replace")

    def _log(self, body: Any, raw: bytes, extra: dict | None = None) -> None:
        entry = {
            "seq": next(self.state.seq),
            "t": time.time(),
            "method": self.command,
            "path": self.path,
            "headers": _redact(self.headers),
            "body": body,
            "rule": None,  # which reply rule answered a model request
        }
        entry.update(extra or {})
        self.state.log(entry)
        self._approx_tokens = max(1, len(raw) // 4)

    def _json(self, status: int, obj: Any) -> None:
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _sse_start(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def _sse(self, event: str, data: dict) -> None:
        payload = f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()
        self.wfile.write(f"{len(payload):X}\r\n".encode() + payload + b"\r\n")
        self.wfile.flush()

    def _sse_end(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    # ------------------------------------------------------------ routes
    def do_HEAD(self) -> None:
        self._log(None, b"")
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self) -> None:
        self._log(None, b"")
        path = self.path.split("?")[0].rstrip("/")
        if path in ("", "/health"):
            self._json(200, {"ok": True})
        elif path.startswith("/v1/models"):
            model = {
                "type": "model",
                "id": "claude-fake",
                "display_name": "Fake model",
                "created_at": "2025-01-01T00:00:00Z",
                "object": "model",
                "owned_by": "fake",
            }
            if path != "/v1/models":
                self._json(200, dict(model, id=path.rsplit("/", 1)[-1]))
            else:
                self._json(
                    200,
                    {
                        "data": [model],
                        "has_more": False,
                        "first_id": model["id"],
                        "last_id": model["id"],
                        "object": "list",
                        "models": [],
                    },
                )
        else:
            self._json(404, {"error": {"type": "not_found_error", "message": f"no route {path}"}})

    def do_POST(self) -> None:
        raw, body = self._read_body()
        path = self.path.split("?")[0].rstrip("/")
        if not isinstance(body, dict):
            body = {"_raw": body} if body is not None else {}
        if path == "/v1/messages":
            decision = decide_claude(body, self.state)
            self._log(body, raw, {"rule": decision["rule"]})
            self._claude_reply(body, decision)
        elif path == "/v1/messages/count_tokens":
            self._log(body, raw)
            self._json(200, {"input_tokens": self._approx_tokens})
        elif path == "/v1/responses":
            decision = decide_codex(body, self.state)
            self._log(body, raw, {"rule": decision["rule"]})
            self._codex_reply(body, decision)
        elif path in ("/v1/chat/completions", "/chat/completions"):
            decision = decide_chat(body, self.state)
            self._log(body, raw, {"rule": decision["rule"]})
            self._chat_reply(body, decision)
        elif path.endswith(":generateContent") or path.endswith(":streamGenerateContent"):
            # Gemini CLI's utility calls (its /compress summary and the summary's check):
            # they skip the BeforeModel hook that is the e2e's model for its turns.
            rule, text = decide_gemini(body)
            self._log(body, raw, {"rule": rule})
            # A turn reports 50,000 prompt tokens (FILLCTX=N: N, for an automatic fold).
            used = 100 if rule == "gemini-summary" else 50000
            if rule == "gemini-reply":
                used = _fill_tokens(gemini_last_prompt(body)[-200:]) or used
            reply = {
                "candidates": [
                    {
                        "content": {"role": "model", "parts": [{"text": text}]},
                        "finishReason": "STOP",
                    }
                ],
                "usageMetadata": {"promptTokenCount": used, "totalTokenCount": used + 20},
            }
            if path.endswith(":streamGenerateContent"):
                self._sse_start()
                self._sse_data(reply)
                self._sse_end()
            else:
                self._json(200, reply)
        elif path.endswith(":countTokens"):
            self._log(body, raw)
            self._json(200, {"totalTokens": 100})
        elif path == "/v1/responses/compact":
            self._log(body, raw, {"rule": "codex-remote-compact"})
            self._json(
                200,
                {
                    "output": [
                        {
                            "type": "message",
                            "role": "user",
                            "content": [{"type": "input_text", "text": CODEX_COMPACT_SUMMARY}],
                        }
                    ]
                },
            )
        else:
            self._log(body, raw)
            self._json(404, {"error": {"type": "not_found_error", "message": f"no route {path}"}})

    # ------------------------------------------------------------ Anthropic
    def _claude_reply(self, body: dict, d: dict) -> None:
        if d.get("status") == 400:
            n = 1_000_000 + self._approx_tokens
            self._json(
                400,
                {
                    "type": "error",
                    "error": {
                        "type": "invalid_request_error",
                        "message": f"prompt is too long: {n} tokens > 1000000 maximum",
                    },
                },
            )
            return
        time.sleep(d.get("delay", self.state.reply_delay) or 0)
        model = body.get("model") or "claude-fake"
        msg_id = "msg_fake_" + uuid.uuid4().hex[:20]
        in_tok = int(d.get("input_tokens") or self._approx_tokens)
        if "tool_command" in d:
            block = {
                "type": "tool_use",
                "id": "toolu_fake_" + uuid.uuid4().hex[:16],
                "name": "Bash",
                "input": {},
            }
            args = json.dumps({"command": d["tool_command"]})
            deltas = [{"type": "input_json_delta", "partial_json": p} for p in _chunks(args, 2)]
            final_block = dict(block, input={"command": d["tool_command"]})
            stop, out_tok = "tool_use", max(1, len(args) // 4)
        else:
            block = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": p} for p in _chunks(d["text"])]
            final_block = {"type": "text", "text": d["text"]}
            stop, out_tok = "end_turn", max(1, len(d["text"]) // 4)
        usage = {
            "input_tokens": in_tok,
            "output_tokens": out_tok,
            # CACHEWRITE in the prompt: a prompt-cache write (Claude Code arms its idle
            # compaction only after a request that wrote to its 1-hour cache).
            "cache_creation_input_tokens": int(d.get("cache_write") or 0),
            "cache_read_input_tokens": 0,
        }
        if not body.get("stream"):
            self._json(
                200,
                {
                    "id": msg_id,
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [final_block],
                    "stop_reason": stop,
                    "stop_sequence": None,
                    "usage": usage,
                },
            )
            return
        self._sse_start()
        self._sse(
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": msg_id,
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": dict(usage, output_tokens=1),
                },
            },
        )
        self._sse(
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": block},
        )
        self._sse("ping", {"type": "ping"})
        for delta in deltas:
            self._sse(
                "content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}
            )
        self._sse("content_block_stop", {"type": "content_block_stop", "index": 0})
        self._sse(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": out_tok},
            },
        )
        self._sse("message_stop", {"type": "message_stop"})
        self._sse_end()

    # ------------------------------------------------------------ OpenAI chat completions
    def _chat_reply(self, body: dict, d: dict) -> None:
        """Streaming ``chat.completion.chunk`` lines, the usage chunk when asked for
        (``stream_options.include_usage``), then ``data: [DONE]``; or one JSON object."""
        time.sleep(d.get("delay", self.state.reply_delay) or 0)
        model = body.get("model") or "fake-gpt"
        base = {
            "id": "chatcmpl-fake" + uuid.uuid4().hex[:20],
            "created": int(time.time()),
            "model": model,
        }
        text = d.get("text", "")
        in_tok = int(d.get("input_tokens") or self._approx_tokens)
        out_tok = max(1, len(text) // 4)
        usage = {
            "prompt_tokens": in_tok,
            "completion_tokens": out_tok,
            "total_tokens": in_tok + out_tok,
        }
        if not body.get("stream"):
            message = {"role": "assistant", "content": text}
            choice = {"index": 0, "message": message, "finish_reason": "stop"}
            self._json(200, dict(base, object="chat.completion", choices=[choice], usage=usage))
            return
        self._sse_start()
        chunk = dict(base, object="chat.completion.chunk")
        if "tool_command" in d:  # Copilot CLI's shell tool, `bash`
            args = json.dumps({"command": d["tool_command"], "description": "run", "mode": "sync"})
            call = {"index": 0, "id": "call_fake_" + uuid.uuid4().hex[:16], "type": "function"}
            call["function"] = {"name": "bash", "arguments": ""}
            delta: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [call]}
            self._sse_data(
                dict(chunk, choices=[{"index": 0, "delta": delta, "finish_reason": None}])
            )
            for part in _chunks(args, 2):
                more = {"tool_calls": [{"index": 0, "function": {"arguments": part}}]}
                choice = {"index": 0, "delta": more, "finish_reason": None}
                self._sse_data(dict(chunk, choices=[choice]))
            done = {"index": 0, "delta": {}, "finish_reason": "tool_calls"}
            self._sse_data(dict(chunk, choices=[done]))
            self._sse_data(dict(chunk, choices=[], usage=usage))
            self._sse_data("[DONE]")
            self._sse_end()
            return
        first = {"role": "assistant", "content": ""}
        self._sse_data(dict(chunk, choices=[{"index": 0, "delta": first, "finish_reason": None}]))
        for part in _chunks(text):
            delta = {"content": part}
            self._sse_data(
                dict(chunk, choices=[{"index": 0, "delta": delta, "finish_reason": None}])
            )
        self._sse_data(dict(chunk, choices=[{"index": 0, "delta": {}, "finish_reason": "stop"}]))
        options = body.get("stream_options")
        if isinstance(options, dict) and options.get("include_usage"):
            self._sse_data(dict(chunk, choices=[], usage=usage))
        self._sse_data("[DONE]")
        self._sse_end()

    def _sse_data(self, data: dict | str) -> None:
        """One ``data:`` line with no event name (the chat completions stream)."""
        text = data if isinstance(data, str) else json.dumps(data)
        payload = f"data: {text}\n\n".encode()
        self.wfile.write(f"{len(payload):X}\r\n".encode() + payload + b"\r\n")
        self.wfile.flush()

    # ------------------------------------------------------------ OpenAI Responses
    def _codex_reply(self, body: dict, d: dict) -> None:
        model = body.get("model") or "fake-gpt"
        resp_id = "resp_fake_" + uuid.uuid4().hex[:20]
        base = {
            "id": resp_id,
            "object": "response",
            "created_at": int(time.time()),
            "model": model,
            "status": "in_progress",
            "output": [],
            "usage": None,
        }
        if d.get("status") == 400:
            n = 1_000_000 + self._approx_tokens
            self._json(
                400,
                {
                    "error": {
                        "type": "invalid_request_error",
                        "code": "context_length_exceeded",
                        "param": "input",
                        "message": f"prompt is too long: {n} tokens > 1000000 maximum",
                    }
                },
            )
            return
        time.sleep(d.get("delay", self.state.reply_delay) or 0)
        if "tool_command" in d:
            self._codex_tool_call(base, d["tool_command"])
            return
        text = d["text"]
        in_tok = int(d.get("input_tokens") or self._approx_tokens)
        out_tok = max(1, len(text) // 4)
        item_id = "msg_fake_" + uuid.uuid4().hex[:20]
        part = {"type": "output_text", "text": "", "annotations": []}
        item = {
            "id": item_id,
            "type": "message",
            "role": "assistant",
            "status": "in_progress",
            "content": [],
        }
        done_part = dict(part, text=text)
        done_item = dict(item, status="completed", content=[done_part])
        seq = itertools.count()

        def ev(kind: str, **fields: Any) -> None:
            self._sse(kind, {"type": kind, "sequence_number": next(seq), **fields})

        self._sse_start()
        ev("response.created", response=base)
        ev("response.in_progress", response=base)
        ev("response.output_item.added", output_index=0, item=item)
        ev(
            "response.content_part.added",
            item_id=item_id,
            output_index=0,
            content_index=0,
            part=part,
        )
        for chunk in _chunks(text):
            ev(
                "response.output_text.delta",
                item_id=item_id,
                output_index=0,
                content_index=0,
                delta=chunk,
            )
        ev("response.output_text.done", item_id=item_id, output_index=0, content_index=0, text=text)
        ev(
            "response.content_part.done",
            item_id=item_id,
            output_index=0,
            content_index=0,
            part=done_part,
        )
        ev("response.output_item.done", output_index=0, item=done_item)
        ev(
            "response.completed",
            response=dict(
                base,
                status="completed",
                output=[done_item],
                usage={
                    "input_tokens": in_tok,
                    "input_tokens_details": {"cached_tokens": 0},
                    "output_tokens": out_tok,
                    "output_tokens_details": {"reasoning_tokens": 0},
                    "total_tokens": in_tok + out_tok,
                },
            ),
        )
        self._sse_end()

    def _codex_tool_call(self, base: dict, command: str) -> None:
        """One ``exec_command`` function call (Codex 0.171.0's shell tool), streamed."""
        item_id = "fc_fake_" + uuid.uuid4().hex[:20]
        call_id = "call_fake_" + uuid.uuid4().hex[:16]
        args = json.dumps({"cmd": command, "login": False})  # keep the PATH tether runs it with
        item = {
            "id": item_id,
            "type": "function_call",
            "status": "in_progress",
            "name": "exec_command",
            "call_id": call_id,
            "arguments": "",
        }
        done_item = dict(item, status="completed", arguments=args)
        seq = itertools.count()

        def ev(kind: str, **fields: Any) -> None:
            self._sse(kind, {"type": kind, "sequence_number": next(seq), **fields})

        self._sse_start()
        ev("response.created", response=base)
        ev("response.in_progress", response=base)
        ev("response.output_item.added", output_index=0, item=item)
        for chunk in _chunks(args, 2):
            ev(
                "response.function_call_arguments.delta",
                item_id=item_id,
                output_index=0,
                delta=chunk,
            )
        ev("response.function_call_arguments.done", item_id=item_id, output_index=0, arguments=args)
        ev("response.output_item.done", output_index=0, item=done_item)
        in_tok, out_tok = self._approx_tokens, max(1, len(args) // 4)
        usage = {
            "input_tokens": in_tok,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": out_tok,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": in_tok + out_tok,
        }
        ev(
            "response.completed",
            response=dict(base, status="completed", output=[done_item], usage=usage),
        )
        self._sse_end()


class ServerProcess:
    """A fake server running as its own process (see ``start_server``)."""

    def __init__(self, proc: subprocess.Popen, info: dict, log_path: Path):
        self.proc, self.log_path = proc, log_path
        self.port: int = info["port"]
        self.url: str = info["url"]
        self.pid: int = info["pid"]

    def requests(self, path: str | None = None, rule: str | None = None) -> list[dict]:
        """Every logged request so far (optionally only those whose path starts with
        ``path`` and/or whose reply rule is ``rule``), oldest first."""
        out = []
        if self.log_path.exists():
            for line in self.log_path.read_text(encoding="utf-8").splitlines():
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue  # a line being written right now
                if path and not entry["path"].startswith(path):
                    continue
                if rule and entry.get("rule") != rule:
                    continue
                out.append(entry)
        return out

    def wait_for_request(
        self, predicate: Any = None, timeout: float = 20.0, **filters: Any
    ) -> dict:
        """Poll the log until a request matches ``filters`` (path=, rule=) and ``predicate``."""
        deadline = time.monotonic() + timeout
        while True:
            for entry in self.requests(**filters):
                if predicate is None or predicate(entry):
                    return entry
            if time.monotonic() >= deadline:
                raise TimeoutError(f"no request matching {filters} within {timeout}s")
            time.sleep(0.1)

    def stop(self, timeout: float = 5.0) -> None:
        """SIGTERM the server by PID, then SIGKILL if it lingers. Idempotent."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout)


def start_server(workdir: Path, *extra_args: str, timeout: float = 10.0) -> ServerProcess:
    """Start this file as its own process, logging to ``workdir/requests.jsonl``; wait
    (bounded) for its port file. ``extra_args``: e.g. ``"--reply-delay", "1"``."""
    workdir.mkdir(parents=True, exist_ok=True)
    port_file, log_path = workdir / "server.port.json", workdir / "requests.jsonl"
    port_file.unlink(missing_ok=True)
    cmd = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--port",
        "0",
        "--port-file",
        str(port_file),
        "--log",
        str(log_path),
        *extra_args,
    ]
    with open(workdir / "server.stderr", "w") as stderr:  # the child keeps its own copy
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=stderr)
    deadline = time.monotonic() + timeout
    while not port_file.exists():
        if proc.poll() is not None or time.monotonic() >= deadline:
            proc.kill()
            proc.wait()
            err = (workdir / "server.stderr").read_text()
            raise RuntimeError(f"fake server did not start (rc={proc.returncode}): {err}")
        time.sleep(0.02)
    info = json.loads(port_file.read_text())
    return ServerProcess(proc, info, log_path)


def serve(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0, help="0 = let the OS choose")
    ap.add_argument("--port-file", help="write {port,url,pid} JSON here once listening")
    ap.add_argument("--log", help="append one JSON line per request here")
    ap.add_argument("--reply-delay", type=float, default=0.0, help="seconds before each reply")
    ap.add_argument(
        "--compact-delay", type=float, default=0.0, help="seconds before each compaction reply"
    )
    ap.add_argument(
        "--ack", action="store_true", help="answer recovery payloads with a `tether ack` tool call"
    )
    ap.add_argument(
        "--ack-drop",
        type=int,
        metavar="N",
        help="leave decision N out of the restatement a recovery payload is answered with",
    )
    ap.add_argument(
        "--ack-change",
        type=int,
        metavar="N",
        help="restate decision N with its first value changed (doubled)",
    )
    args = ap.parse_args(argv)

    Handler.state = State(
        args.log, args.reply_delay, args.compact_delay, args.ack_drop, args.ack, args.ack_change
    )
    httpd = ThreadingHTTPServer((args.host, args.port), Handler)
    httpd.daemon_threads = True
    port = httpd.server_address[1]
    info = {"port": port, "url": f"http://{args.host}:{port}", "pid": os.getpid()}
    if args.port_file:
        tmp = args.port_file + ".tmp"
        with open(tmp, "w") as f:
            json.dump(info, f)
        os.replace(tmp, args.port_file)
    print(json.dumps(info), flush=True)

    def stop(signum: int, frame: Any) -> None:
        threading.Thread(target=httpd.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        httpd.serve_forever(poll_interval=0.1)
    finally:
        httpd.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(serve())
