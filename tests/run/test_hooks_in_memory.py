"""A hook call the supervisor's own server answers reaches fusion in memory: the incident
opens with no tick and no look at events.jsonl, and the tick that later reads the line
does not see it twice. Calls recorded by other processes still come through the file."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from supervisor.agents import hook_client
from supervisor.run.supervision import RunConfig, Supervision
from supervisor.store.tether_dir import init
from supervisor.terminal.session import AgentSession
from tests.conftest import until
from tests.store_records import read_jsonl

POST_COMPACT = json.dumps({"trigger": "auto", "compact_summary": "kept the goal"}).encode()


def supervision_in(tmp_path: Path) -> Supervision:
    init(tmp_path, goal="keep the ledger")
    config = RunConfig(argv=[sys.executable], workdir=tmp_path, record=False)
    return Supervision(config, AgentSession([sys.executable], cwd=str(tmp_path)))


async def test_a_hook_the_server_answers_opens_the_incident_without_a_tick(tmp_path, monkeypatch):
    monkeypatch.delenv("TETHER_PROFILE", raising=False)
    supervision = supervision_in(tmp_path)
    supervision.open()
    try:
        server = supervision.hook_server
        assert server is not None
        request = hook_client.request("PostCompact", str(tmp_path), POST_COMPACT, "claude")
        answer = await asyncio.to_thread(server.answer, request)  # as the server's thread does
        assert answer.startswith(b"OK 0 ")
        await until(lambda: supervision.current_incident is not None, "the incident, in memory")
        assert supervision.current_incident.kind == "compaction"
        supervision.tick()  # the line is read now: it was heard already
        assert len(supervision.fusion.incidents) == 1
        records = read_jsonl(supervision.tether.events)[0]
        hooks = [r for r in records if r["kind"] == "hook"]
        assert [h["event"] for h in hooks] == ["PostCompact"]  # the record is still written
    finally:
        supervision.close()


async def test_a_hook_recorded_by_another_process_comes_through_the_file(tmp_path):
    supervision = supervision_in(tmp_path)
    supervision.open()
    try:
        supervision.tether.record_event(
            "hook", "hook", event="PostCompact", payload=json.loads(POST_COMPACT)
        )
        assert supervision.current_incident is None
        supervision.tick()  # its number is claimed off the loop, then the incident opens
        await until(lambda: supervision.current_incident is not None, "the incident")
    finally:
        supervision.close()
