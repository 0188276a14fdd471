"""aider's history files as a source: its chat history and the LLM history tether asks for.

The fixtures are aider 0.86.2's own files from tests/e2e/test_aider.py against the fake
server (--verbose, --max-chat-history-tokens 300): a DECISION, an edit that folds, F6,
/clear, a prompt, SIGKILL, `aider --restore-chat-history` (which folds the restored
history as it starts) and F6. aider threw the first fold's summary away (its thread raced
the main one: no request carried it); the restart's fold stuck, and the request after it
carries its summary.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from supervisor.agents.aider_history_follower import (
    AiderHistoryFollower,
    chat_history_path,
    llm_history_args,
    option_value,
)
from supervisor.config.profiles import load_profile
from supervisor.recognize.aider_history import (
    CHAT_HISTORY,
    LLM_HISTORY,
    AiderChatHistory,
    AiderLlmHistory,
)
from supervisor.recognize.fusion import Fusion
from supervisor.recognize.observations import (
    AT_NEXT_TURN,
    AUTO,
    COMPACTION,
    COMPACTION_STARTED,
    SCREEN,
    TRANSCRIPT,
    WIPE,
    Observation,
)
from supervisor.recognize.transcripts import OwnWords
from supervisor.run.run_config import agent_argv
from supervisor.store.tether_dir import TetherDir
from tests.locations import CAPTURES

HISTORY = CAPTURES / "aider0862-history"
DECISION = (
    "refresh tokens in Redis, 15 minute TTL, rotate on use, because the mobile client "
    "cannot persist tokens"
)


def lines(name: str) -> list[str]:
    return (HISTORY / name).read_text(encoding="utf-8").splitlines()


def read_llm_history(parser: AiderLlmHistory) -> list[Observation]:
    found: list[Observation] = []
    for line in lines("llm-history.txt"):
        found += parser.feed(line, 100.0)
    return found + parser.flush(100.0)


def test_the_chat_history_shows_both_folds_and_the_clear() -> None:
    parser = AiderChatHistory()
    found = [o for line in lines("chat.history.md") for o in parser.feed(line, 1.0)]
    kinds = [o.kind for o in found]
    assert kinds == [COMPACTION_STARTED, COMPACTION, WIPE, COMPACTION_STARTED, COMPACTION]
    assert {o.source for o in found} == {TRANSCRIPT}
    assert {o.details["channel"] for o in found} == {CHAT_HISTORY}
    assert [o.trigger for o in found if o.kind != WIPE] == [AUTO] * 4


def test_the_llm_history_gives_the_summary_that_stuck_once() -> None:
    payload = next(line for line in lines("llm-history.txt") if "Context check" in line)
    own = OwnWords()
    own.add(payload.removeprefix("USER "))
    (fold,) = read_llm_history(AiderLlmHistory(own))
    assert fold.kind == COMPACTION and fold.source == TRANSCRIPT and fold.trigger == AUTO
    assert fold.summary is not None
    assert fold.summary.startswith("FAKE-AIDER-SUMMARY: we talked about the authentication")
    assert fold.details == {"channel": LLM_HISTORY, AT_NEXT_TURN: True}
    # The request before the crash held the user's "what now" (after /clear); the one
    # after the restart's fold does not: it went into the summary.
    assert fold.folded == ("what now",)


def test_the_screen_the_chat_history_and_the_summary_make_one_incident_with_its_audit() -> None:
    fusion = Fusion(decisions=lambda: [DECISION])
    screen = Observation(COMPACTION, SCREEN, 10.0, details={"channel": "re0"})
    first = fusion.observe(screen)
    assert first is not None and first.new
    for observation in AiderChatHistory().feed("> Finished summarizing chat history.  ", 10.2):
        fusion.observe(observation)
    # The request that carries the summary comes at the next prompt, a minute later.
    for observation in read_llm_history(AiderLlmHistory()):
        fusion.observe(Observation(**{**_fields(observation), "at": 70.0}))
    (incident,) = fusion.incidents
    assert incident.sources == [SCREEN, TRANSCRIPT]
    assert incident.trigger == AUTO
    assert incident.summary is not None and "FAKE-AIDER-SUMMARY" in incident.summary
    assert incident.audit is not None
    # The fake summary names the subject, not the decision's values: the audit says so.
    assert [d.decision for d in incident.audit.decisions] == [DECISION]
    assert [d.status for d in incident.audit.decisions] == ["degraded"]


def test_without_verbose_a_fold_that_stuck_is_one_incident_from_the_llm_history_alone() -> None:
    fusion = Fusion(decisions=lambda: [DECISION])
    for observation in read_llm_history(AiderLlmHistory()):
        fusion.observe(observation)
    (incident,) = fusion.incidents
    assert incident.kind == "compaction" and incident.sources == [TRANSCRIPT]
    assert incident.trigger == AUTO and incident.audit is not None
    assert incident.fold_audited  # "what now": the folded window, held against the summary


def _fields(observation: Observation) -> dict[str, object]:
    return {
        "kind": observation.kind,
        "source": observation.source,
        "at": observation.at,
        "trigger": observation.trigger,
        "summary": observation.summary,
        "details": observation.details,
        "folded": observation.folded,
    }


def test_the_follower_reads_new_lines_only_and_waits_for_a_torn_one(tmp_path: Path) -> None:
    work, tether = tmp_path / "work", tmp_path / "work" / ".tether"
    tether.mkdir(parents=True)
    chat = work / ".aider.chat.history.md"
    chat.write_text("> All chat history cleared.  \n")  # an earlier run's
    follower = AiderHistoryFollower(["aider"], {}, work, tether)
    assert follower.poll(1.0) == []
    with chat.open("a") as file:
        file.write("> All chat history clea")
    assert follower.poll(2.0) == []
    with chat.open("a") as file:
        file.write("red.  \n")
    (wipe,) = follower.poll(3.0)
    assert wipe.kind == WIPE and wipe.at == 3.0


def test_a_request_is_read_whole_once_written_and_its_summary_is_clean(tmp_path: Path) -> None:
    work, tether = tmp_path, tmp_path / ".tether"
    tether.mkdir()
    follower = AiderHistoryFollower(["aider"], {}, work, tether)
    assert follower.poll(1.0) == []  # not written yet: read from its start once it is
    llm = tether / "agent" / "aider-llm-history.txt"
    llm.parent.mkdir()
    request = [
        "TO LLM 2026-12-02T01:21:48",
        "-------",
        "SYSTEM Act as an expert software developer.",
        "-------",
        "USER I spoke to you previously about a number of things.",
        "USER keep \x1b[31mport 8443\x07 and the \x9b2J token TTL",
        "-------",
        "ASSISTANT Ok.",
    ]
    llm.write_text("\n".join(request) + "\n")
    (fold,) = follower.poll(2.0)  # no LLM RESPONSE yet: aider wrote the request at once
    assert fold.summary == "keep [31mport 8443 and the 2J token TTL"
    llm.write_text(llm.read_text() + "LLM RESPONSE 2026-12-02T01:21:49\nASSISTANT hi\n")
    assert follower.poll(3.0) == []  # the same summary, not a second fold


def test_tether_names_its_llm_history_under_tether_unless_the_user_names_one(
    tmp_path: Path,
) -> None:
    tether = TetherDir.at(tmp_path)
    profile = load_profile("aider")
    argv = agent_argv(profile, ["--verbose"], tether, resume=True)
    assert argv[1:3] == ["--llm-history-file", str(tether.agent / "aider-llm-history.txt")]
    assert argv[-2:] == ["--restore-chat-history", "--verbose"]
    assert llm_history_args(tether.root, ["--llm-history-file=mine.txt"]) == []
    assert option_value(["--llm-history-file=mine.txt"], "--llm-history-file") == "mine.txt"


def test_the_chat_history_is_where_aider_writes_it(tmp_path: Path) -> None:
    work = tmp_path / "repo" / "sub"
    work.mkdir(parents=True)
    assert chat_history_path([], {}, work) == work / ".aider.chat.history.md"
    (tmp_path / "repo" / ".git").mkdir()
    assert chat_history_path([], {}, work) == tmp_path / "repo" / ".aider.chat.history.md"
    env = {"AIDER_CHAT_HISTORY_FILE": "h.md"}
    assert chat_history_path([], env, work) == work / "h.md"
    named = ["--chat-history-file", "/x/c.md"]
    assert chat_history_path(named, env, work) == Path("/x/c.md")


_LINES = st.one_of(
    st.sampled_from(
        [
            "TO LLM 2026-12-02T01:21:48",
            "LLM RESPONSE 2026-12-02T01:21:49",
            "-------",
            "USER I spoke to you previously about a number of things.",
            "> All chat history cleared.  ",
            "> Finished summarizing chat history.",
        ]
    ),
    st.builds(
        lambda role, text: f"{role} {text}", st.sampled_from(["USER", "ASSISTANT"]), st.text()
    ),
    st.text(),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_LINES, max_size=40))
def test_any_lines_give_clean_observations_never_an_error(lines_: list[str]) -> None:
    chat, llm = AiderChatHistory(), AiderLlmHistory()
    found = [o for line in lines_ for o in chat.feed(line, 1.0) + llm.feed(line, 1.0)]
    found += llm.flush(2.0)
    for observation in found:
        summary = observation.summary or ""
        assert not any(ord(c) < 32 and c not in "\t\n" for c in summary)
        assert not any(0x7F <= ord(c) <= 0x9F for c in summary)
