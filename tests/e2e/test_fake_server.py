"""The fake model server on its own: routes, reply rules, the lossy summary, the log, SIGTERM.

No agent CLI needed; these take well under a second.
"""

from __future__ import annotations

import http.client
import json
from urllib.parse import urlparse

import pytest

from tests.e2e.fake_server import (
    CLAUDE_COMPACT_SUMMARY,
    CODEX_COMPACT_SUMMARY,
    GEMINI_SUMMARY,
    State,
    decide_chat,
    start_server,
)

SPECIFICS = ("Redis", "15 minute", "rotate on use", "mobile client", "TTL", "persist")


@pytest.fixture
def server(tmp_path):
    srv = start_server(tmp_path)
    yield srv
    srv.stop()


def _call(server, method: str, path: str, body: dict | None = None, headers=None):
    u = urlparse(server.url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
    data = json.dumps(body).encode() if body is not None else None
    conn.request(
        method, path, body=data, headers={"Content-Type": "application/json", **(headers or {})}
    )
    resp = conn.getresponse()
    raw = resp.read().decode()
    conn.close()
    return resp.status, raw


def _sse_events(raw: str) -> list[tuple[str, dict]]:
    out = []
    for block in raw.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        out.append((lines["event"], json.loads(lines["data"])))
    return out


def _claude(text: str, stream: bool = True, **extra) -> dict:
    return {
        "model": "claude-x",
        "stream": stream,
        "max_tokens": 100,
        "tools": [{"name": "Bash"}],
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "<system-reminder>ctx</system-reminder>"},
                    {"type": "text", "text": text},
                ],
            }
        ],
        **extra,
    }


def _claude_text(raw: str) -> str:
    return "".join(
        d["delta"].get("text", "") for e, d in _sse_events(raw) if e == "content_block_delta"
    )


def test_summaries_are_lossy():
    for summary in (CLAUDE_COMPACT_SUMMARY, CODEX_COMPACT_SUMMARY):
        assert "refresh tokens" in summary
        assert not [s for s in SPECIFICS if s.lower() in summary.lower()]
    assert "FAKE-COMPACT-SUMMARY" in CLAUDE_COMPACT_SUMMARY
    assert "<summary>" in CLAUDE_COMPACT_SUMMARY
    assert "FAKE-CODEX-COMPACT-SUMMARY" in CODEX_COMPACT_SUMMARY


def test_claude_routes_and_rules(server):
    assert _call(server, "HEAD", "/")[0] == 200
    assert _call(server, "GET", "/health")[0] == 200
    assert json.loads(_call(server, "GET", "/v1/models")[1])["data"]
    status, raw = _call(server, "POST", "/v1/messages/count_tokens", _claude("hi"))
    assert status == 200 and json.loads(raw)["input_tokens"] > 0

    status, raw = _call(
        server, "POST", "/v1/messages?beta=true", _claude("hello there"), {"x-api-key": "sk-secret"}
    )
    events = _sse_events(raw)
    assert [e for e, _ in events][:3] == ["message_start", "content_block_start", "ping"]
    assert events[-1][0] == "message_stop"
    assert _claude_text(raw) == "FAKE-REPLY 1: ack 'hello there'"

    _, raw = _call(server, "POST", "/v1/messages", _claude("RUN:ls -la"))
    events = _sse_events(raw)
    assert events[1][1]["content_block"]["name"] == "Bash"
    args = "".join(d["delta"]["partial_json"] for e, d in events if e == "content_block_delta")
    assert json.loads(args) == {"command": "ls -la"}

    _, raw = _call(server, "POST", "/v1/messages", _claude("FILLCTX=123456"))
    assert _sse_events(raw)[0][1]["message"]["usage"]["input_tokens"] == 123456

    status, raw = _call(server, "POST", "/v1/messages", _claude("TOOLONG x"))
    assert status == 400 and "prompt is too long" in raw
    status, raw = _call(server, "POST", "/v1/messages", _claude("TOOLONG x"))
    assert status == 200, "TOOLONG fails once only"

    compact = "CRITICAL ... Your task is to create a detailed summary of the conversation so far"
    _, raw = _call(server, "POST", "/v1/messages", _claude(compact))
    assert _claude_text(raw) == CLAUDE_COMPACT_SUMMARY

    title = {
        "model": "m",
        "stream": False,
        "system": [{"type": "text", "text": "Write a title"}],
        "messages": [{"role": "user", "content": "hello"}],
        "tools": [],
    }
    _, raw = _call(server, "POST", "/v1/messages", title)
    assert json.loads(json.loads(raw)["content"][0]["text"]) == {"title": "Fake session title"}

    log = server.requests()
    assert [e["seq"] for e in log] == list(range(1, len(log) + 1))
    first_post = server.requests(path="/v1/messages?beta")[0]
    assert first_post["headers"]["x-api-key"] == "<redacted>"
    assert first_post["body"]["messages"][0]["content"][1]["text"] == "hello there"
    assert [e["rule"] for e in server.requests(path="/v1/messages") if e["rule"]][-2:] == [
        "claude-compact",
        "title",
    ]


def test_codex_responses(server):
    def body(*texts):
        return {
            "model": "fake-gpt",
            "stream": True,
            "input": [
                {
                    "type": "message",
                    "role": "user",
                    "content": [
                        {
                            "type": "input_text",
                            "text": "<environment_context>x</environment_context>",
                        }
                    ],
                },
                *(
                    {
                        "type": "message",
                        "role": "user",
                        "content": [{"type": "input_text", "text": t}],
                    }
                    for t in texts
                ),
            ],
        }

    _, raw = _call(server, "POST", "/v1/responses", body("hi codex"))
    events = _sse_events(raw)
    assert events[0][0] == "response.created" and events[-1][0] == "response.completed"
    done = events[-1][1]["response"]
    assert done["output"][0]["content"][0]["text"] == "FAKE-REPLY 1: ack 'hi codex'"
    assert done["usage"]["total_tokens"] > 0

    compact = "You are performing a CONTEXT CHECKPOINT COMPACTION. Create a handoff summary"
    _, raw = _call(server, "POST", "/v1/responses", body("hi codex", compact))
    text = _sse_events(raw)[-1][1]["response"]["output"][0]["content"][0]["text"]
    assert text == CODEX_COMPACT_SUMMARY

    # tether's payload talks of a summary, a checkpoint and compaction: still a normal reply
    payload = "Context check from tether: ... compacted ...\n# Checkpoint summary (from ...)"
    _, raw = _call(server, "POST", "/v1/responses", body("hi codex", payload))
    text = _sse_events(raw)[-1][1]["response"]["output"][0]["content"][0]["text"]
    assert text.startswith("FAKE-REPLY 2: ack 'Context check from tether")


def test_stops_on_sigterm(tmp_path):
    srv = start_server(tmp_path)
    assert _call(srv, "GET", "/health")[0] == 200
    srv.proc.terminate()
    assert srv.proc.wait(5) == 0


def test_a_recovery_payload_is_answered_with_tether_ack_of_its_pins() -> None:
    import shlex

    from tests.e2e.fake_server import recall_ack_command

    payload = (
        'Context check from tether: ... send that restatement with `tether ack "..."`.\n\n'
        "## Pinned decisions (verbatim; they hold whatever your memory says)\n\n"
        "1. refresh tokens in Redis, 15 minute TTL\n2. the team's kiosks are shared\n\n"
        "## Next step\n\n3. not a decision\n"
    )
    whole = shlex.split(recall_ack_command(payload, None))
    assert whole == [
        "tether", "ack",
        "Restated: 1. we hold that refresh tokens in Redis; fifteen-minute TTL. "
        "2. we hold that the team's kiosks are shared.",
    ]  # fmt: skip
    dropped = shlex.split(recall_ack_command(payload, 1))[2]
    assert dropped == "Restated: 2. we hold that the team's kiosks are shared."
    changed = shlex.split(recall_ack_command(payload, None, 1))[2]
    assert changed.startswith("Restated: 1. we hold that refresh tokens in Redis; thirty-minute")
    resend = (
        "Recall check from tether: ...\n\n1. refresh tokens in Redis\n   (not in ...)\n`tether ack`"
    )
    assert shlex.split(recall_ack_command(resend, 1, 1))[2] == (
        "Restated: 1. we hold that refresh tokens in Redis."
    )
    assert recall_ack_command("hello, tether ack", None) is None


def test_without_ack_a_recovery_payload_gets_the_plain_reply() -> None:
    from tests.e2e.fake_server import State, decide_claude

    payload = "Context check from tether: `tether ack`\n## Pinned decisions\n\n1. Redis\n"
    body = {"messages": [{"role": "user", "content": payload}]}
    assert decide_claude(body, State(None, 0.0, 0.0))["rule"] == "reply"
    assert decide_claude(body, State(None, 0.0, 0.0, ack=True))["rule"] == "ack"
    assert decide_claude(body, State(None, 0.0, 0.0, ack_drop=1))["tool_command"] == (
        "tether ack 'Restated: (no decisions)'"
    )
    assert decide_claude(body, State(None, 0.0, 0.0, ack_change=1))["tool_command"] == (
        "tether ack 'Restated: 1. we hold that Redis.'"
    )


def test_an_edit_request_is_answered_with_a_search_replace_block_creating_the_file() -> None:
    body = {"messages": [{"role": "user", "content": "please write EDIT:notes.txt"}]}
    reply = decide_chat(body, State(None, 0.0, 0.0))
    assert reply["rule"] == "edit"
    assert "notes.txt\n<<<<<<< SEARCH\n=======\n" in reply["text"]
    assert reply["text"].rstrip().endswith(">>>>>>> REPLACE")


def test_gemini_routes_answer_a_turn_and_the_compress_summary(server):
    turn = {"contents": [{"role": "user", "parts": [{"text": "<ctx>"}, {"text": "hello"}]}]}
    status, raw = _call(server, "POST", "/v1beta/models/m:streamGenerateContent?alt=sse", turn)
    assert status == 200
    (data,) = [json.loads(x[6:]) for x in raw.splitlines() if x.startswith("data: ")]
    assert (
        data["candidates"][0]["content"]["parts"][0]["text"]
        == "FAKE-GEMINI-REPLY 1: ack '<ctx> hello'"
    )
    check = {"contents": [{"role": "user", "parts": [{"text": "the <state_snapshot> again"}]}]}
    status, raw = _call(server, "POST", "/v1beta/models/m:generateContent", check)
    assert status == 200
    assert json.loads(raw)["candidates"][0]["content"]["parts"][0]["text"] == GEMINI_SUMMARY
