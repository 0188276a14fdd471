"""When tether may inject: the agent's own reports, quiet output, and idle output."""

from supervisor.recognize.agent_state import BUSY, EXITED, WAITING, AgentState
from supervisor.recognize.observations import AGENT_STATE, CRASH, HOOK, SCREEN, Observation


def report(state: AgentState, value: str, at: float, source: str = SCREEN) -> None:
    state.observe(Observation(AGENT_STATE, source, at, details={"state": value}))


def test_waiting_needs_the_output_to_have_settled():
    state = AgentState(quiet_after=0.4, idle_after=3.0)
    state.note_output(10.0)
    report(state, WAITING, 10.0)
    assert not state.ready_for_input(10.1)  # mid-redraw
    assert state.ready_for_input(10.5)


def test_a_busy_agent_animates_so_it_is_not_ready_while_output_flows():
    state = AgentState(quiet_after=0.4, idle_after=3.0)
    report(state, BUSY, 0.0)
    for tick in range(20):
        state.note_output(tick * 0.5)
        assert not state.ready_for_input(tick * 0.5 + 0.1)
    assert state.state(10.0) == BUSY


def test_silent_output_means_waiting_even_under_a_stale_busy_cue():
    state = AgentState(quiet_after=0.4, idle_after=3.0)
    state.note_output(1.0)
    report(state, BUSY, 1.0)
    assert not state.ready_for_input(3.9)
    assert state.ready_for_input(4.1)
    assert state.state(4.1) == WAITING


def test_nothing_is_ready_before_the_first_output_or_after_exit():
    state = AgentState(quiet_after=0.4, idle_after=3.0)
    assert not state.ready_for_input(100.0)
    state.note_output(1.0)
    state.observe(Observation(CRASH, HOOK, 2.0))
    assert state.state(100.0) == EXITED
    assert not state.ready_for_input(100.0)


def test_a_restarted_agent_is_not_idle_until_it_has_spoken():
    state = AgentState(quiet_after=0.4, idle_after=3.0)
    state.note_output(1.0)
    state.observe(Observation(CRASH, HOOK, 2.0))
    state.restart()
    assert not state.ready_for_input(50.0)
    state.note_output(51.0)
    assert state.ready_for_input(54.5)


def test_nothing_is_ready_before_the_first_frame_however_long_the_silence():
    state = AgentState(quiet_after=0.4, idle_after=3.0)
    state.note_output(1.0, drew=False)  # a terminal query, a title: nothing drawn
    report(state, WAITING, 1.0, HOOK)
    assert not state.ready_for_input(60.0)
    assert state.waits_for() == "first frame" and state.state(60.0) == "unknown"
    state.note_output(61.0)
    assert state.ready_for_input(61.5)


def test_with_cues_silence_counts_only_after_the_process_said_it_waits():
    state = AgentState(quiet_after=0.4, idle_after=3.0, needs_cue=True)
    state.note_output(1.0)  # a partial frame of a slow start, then silence
    assert not state.ready_for_input(30.0)
    assert state.waits_for() == "cue"
    report(state, WAITING, 31.0)
    state.note_output(31.0)
    assert state.ready_for_input(31.5)
    report(state, BUSY, 32.0)  # later, a stale busy cue is outlived by silence as before
    state.note_output(32.0)
    assert state.ready_for_input(35.1)


def test_a_restart_forgets_the_old_processs_frame_and_cue():
    state = AgentState(quiet_after=0.4, idle_after=3.0)
    state.note_output(1.0)
    report(state, WAITING, 1.0)
    state.observe(Observation(CRASH, HOOK, 2.0))
    state.restart(needs_cue=True)
    state.note_output(3.0)
    assert not state.ready_for_input(50.0)
    assert (state.drawn, state.cued, state.waits_for()) == (True, False, "cue")


def test_a_prompt_drawn_before_the_resumed_session_started_takes_no_paste():
    """A resumed Gemini CLI draws its prompt, hides it while it loads the session, and draws
    it again: only the prompt on screen once its SessionStart hook came counts."""
    state = AgentState(quiet_after=0.4, idle_after=3.0, needs_cue=True)
    state.restart(needs_cue=True, awaits_start=True)
    state.note_output(1.0)
    report(state, WAITING, 1.0)  # the first prompt, before the session is loaded
    assert not state.ready_for_input(30.0)  # nor does its silence count
    assert state.waits_for() == "session start"
    state.session_started(31.0, prompt_shown=False)  # the hook, while it loads
    assert not state.ready_for_input(40.0) and state.waits_for() == "cue"
    state.note_output(41.0)
    report(state, WAITING, 41.0)  # the prompt drawn again
    assert state.ready_for_input(41.5)


def test_a_prompt_already_back_when_the_session_start_hook_comes_counts_then():
    state = AgentState(quiet_after=0.4, idle_after=3.0, needs_cue=True)
    state.restart(needs_cue=True, awaits_start=True)
    state.note_output(1.0)
    report(state, WAITING, 1.0)
    state.note_output(2.0)  # loaded and drawn again: no new cue, the prompt never left
    state.session_started(5.0, prompt_shown=True)
    assert state.ready_for_input(5.0) and state.cued


def test_codexs_osc7501_reports_are_read_once_per_change():
    from supervisor.recognize.agent_state import StatusReports

    reports = StatusReports()
    state = AgentState(quiet_after=0.4, idle_after=3.0)
    assert reports.read("", 1.0) == []
    (working,) = reports.read("state=working:app=codex", 1.0)
    assert working.details == {
        "state": BUSY,
        "raw_state": "working",
        "channel": "osc7501",
        "app": "codex",
    }
    assert reports.read("state=working:app=codex", 1.5) == []  # redrawn, not new
    state.note_output(1.0)
    state.observe(working)
    assert state.state(2.0) == BUSY
    (idle,) = reports.read("state=idle:app=codex:msg=ZG9uZQ==", 2.0)
    assert idle.details["state"] == WAITING and idle.details["message"] == "done"
    state.observe(idle)
    assert state.ready_for_input(2.5)
    assert reports.read("state=thinking-about-it", 3.0) == []  # unknown: no claim


def test_codexs_prompt_and_stop_hooks_say_busy_then_waiting():
    """Codex 0.171.0's real hook calls (tests/fixtures/captures/cx-hooks.hooks.jsonl)."""
    import json

    from supervisor.recognize.hook_events import observations_from_hook
    from tests.replay import captures_dir

    calls = [json.loads(line) for line in (captures_dir() / "cx-hooks.hooks.jsonl").open()]
    state = AgentState(quiet_after=0.4, idle_after=3.0)
    state.note_output(1.0)
    seen = []
    for at, call in enumerate(calls, start=2):
        state.note_output(at - 0.5)  # the agent draws between its hooks
        for observation in observations_from_hook(call["event"], call["payload"], float(at)):
            state.observe(observation)
        if call["event"] in ("UserPromptSubmit", "Stop"):
            seen.append((call["event"], state.state(float(at))))
    assert set(seen) == {("UserPromptSubmit", BUSY), ("Stop", WAITING)}, seen
    assert len(seen) == 8  # four prompts, each with its Stop
