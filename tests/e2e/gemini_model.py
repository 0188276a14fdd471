"""A fake model for Gemini CLI, as its ``BeforeModel`` hook (standard library only).

Gemini CLI 0.61.0 skips the model call when a ``BeforeModel`` hook blocks it
(``"decision": "block"``) and gives ``hookSpecificOutput.llm_response``: that
response is then the turn's reply (the docs leave the block out; without it the
response is ignored and the turn never ends). Each request is appended to the file
``$GEMINI_FAKE_LOG`` as one JSON line ``{"t", "messages"}`` so tests can see what the
model would have received. The reply is ``FAKE-GEMINI-REPLY <n>: ack '<end of the
last user text>'``.
"""

from __future__ import annotations

import json
import os
import sys
import time


def main() -> int:
    try:
        data = json.load(sys.stdin)
    except ValueError:
        data = {}
    request = data.get("llm_request") if isinstance(data, dict) else None
    messages = request.get("messages") if isinstance(request, dict) else None
    messages = messages if isinstance(messages, list) else []
    users = [
        m.get("content", "") for m in messages if isinstance(m, dict) and m.get("role") == "user"
    ]
    log = os.environ.get("GEMINI_FAKE_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as handle:
            handle.write(json.dumps({"t": time.time(), "messages": messages}) + "\n")
    last = str(users[-1]) if users else ""
    text = f"FAKE-GEMINI-REPLY {len(users)}: ack '{last[-40:]}'"
    response = {
        "candidates": [{"content": {"role": "model", "parts": [text]}, "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": 50000, "totalTokenCount": 50020},
    }
    answer = {
        "decision": "block",
        "reason": "fake model",
        "hookSpecificOutput": {"hookEventName": "BeforeModel", "llm_response": response},
    }
    print(json.dumps(answer))
    return 0


if __name__ == "__main__":
    sys.exit(main())
