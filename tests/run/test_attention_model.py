"""What the user is told is decided by one model, without Textual: the banner's notice
(which may replace which) and the status bar's texts, as the engine reports facts."""

from __future__ import annotations

from supervisor.config.keymap import Keymap
from supervisor.recognize.observations import Incident
from supervisor.rehydrate.injector import InjectorStatus
from supervisor.run.attention_model import BRIEF_QUEUED, AttentionModel, AttentionState
from supervisor.terminal.pty_host import ExitStatus


def model(**kwargs: object) -> tuple[AttentionModel, list[AttentionState]]:
    told = AttentionModel(
        keymap=Keymap(),
        profile_name="claude",
        at_next_prompt=False,
        orphan=lambda: None,
        compact_told=True,
    )
    heard: list[AttentionState] = []
    told.listeners.append(heard.append)
    return told, heard


def compaction(number: int = 3) -> Incident:
    return Incident(number, "compaction", "auto", ["hook"], 0.0)


def test_an_incident_names_the_loss_and_the_key_and_counts_it_in_the_status_texts():
    told, heard = model()
    told.incident(compaction(), compactions=1)
    state = heard[-1]
    assert state.notice is not None
    assert state.notice.text.startswith("Context compacted (#3")
    assert state.notice.text.endswith("F6 rehydrate · F7 preview")
    assert state.notice.tone == "warning"
    assert (state.status.compactions, state.status.incidents) == (1, 3)
    assert state.status.last_incident == compaction().title()


def test_the_short_form_puts_the_action_first():
    told, _ = model()
    told.incident(compaction(), compactions=1)
    notice = told.state.notice
    assert notice is not None
    assert notice.short.startswith("F6 rehydrate · F7 preview — Context compacted")
    assert notice.fitted(len(notice.text)) == notice.text
    assert notice.fitted(40) == notice.short


def test_the_compaction_offer_never_replaces_an_incident_and_shows_once_per_crossing():
    told, _ = model()
    told.meter("81% used", offered=True)
    assert told.source == "compact-offer"
    told.incident(compaction(), compactions=1)
    told.meter("82% used", offered=True)
    assert told.source == "incident"  # the incident keeps the row
    told.injection(InjectorStatus("acknowledged", "rehydrate", 3.0))
    told.meter("10% used", offered=False)
    told.meter("85% used", offered=True)
    assert told.source == "compact-offer"  # a new crossing offers again


def test_a_queued_brief_says_so_and_goes_quietly_once_sent():
    told, _ = model()
    told.injection(InjectorStatus("queued", "initial brief", 0, 1))
    assert told.state.banner_line() == BRIEF_QUEUED
    told.injection(InjectorStatus("sent", "initial brief", 0))
    assert told.state.notice is None
    assert told.state.banner_line() == "tether is watching claude: no loss seen yet"


def test_time_refreshes_only_the_injections_own_notice():
    told, _ = model()
    told.injection(InjectorStatus("sent", "rehydrate", 1.0))
    told.time_passed("#2, 5 s ago", InjectorStatus("sent", "rehydrate", 6.0))
    assert "6 s ago" in told.state.banner_line()
    assert told.state.status.checkpoint_age == "#2, 5 s ago"
    told.say("Checkpoint failed", "error")
    told.time_passed("#2, 6 s ago", InjectorStatus("sent", "rehydrate", 7.0))
    assert told.state.banner_line() == "Checkpoint failed"


def test_a_clean_exit_offers_a_restart_and_the_status_says_how_it_ended():
    told, _ = model()
    told.agent_state("unknown")
    assert told.state.status.agent_state == "running"
    told.agent_exited(ExitStatus(0, None))
    assert told.state.banner_line() == "The agent exited with code 0 — F6 restart · F10 quit"
    assert told.state.status.agent_state == "exited with code 0"


def test_listeners_hear_only_changes():
    told, heard = model()
    told.agent_state("busy")
    told.agent_state("busy")
    assert len(heard) == 1


def wipe(number: int = 2) -> Incident:
    return Incident(number, "wipe", None, ["typed"], 0.0)


def test_a_late_sighting_of_an_incident_whose_payload_went_keeps_the_payloads_banner():
    """Issue 26, item 4: after F6 on Codex, its next-turn SessionStart hook joined the
    incident and the banner went back to "... · F6 now", offering a second copy."""
    told = AttentionModel(
        keymap=Keymap(),
        profile_name="codex",
        at_next_prompt=True,
        orphan=lambda: None,
        compact_told=False,
    )
    told.incident(wipe(), compactions=0)
    assert told.state.notice is not None and "F6 now" in told.state.notice.text
    told.injection(InjectorStatus("sent", "rehydrate", 0.0, incident=2))
    later = Incident(2, "wipe", None, ["typed", "hook"], 0.0)
    told.incident(later, compactions=0, new=False)
    notice = told.state.notice
    assert notice is not None and notice.source == "injection"
    assert notice.text.startswith("Payload sent")
    assert "F6" not in notice.text


def test_an_update_of_an_incident_not_being_recovered_still_refreshes_its_banner():
    told, _ = model()
    told.incident(compaction(3), compactions=1)
    told.injection(InjectorStatus("sent", "rehydrate", 0.0, incident=2))  # an older one's
    told.incident(compaction(3), compactions=1, new=False)
    assert told.source == "incident"


def test_the_status_bars_mark_of_an_incident_ends_when_its_recovery_is_acknowledged():
    """Issue 26, item 5: "⚠ Agent crashed (#10)" stayed while the banner said recovered."""
    told, _ = model()
    told.incident(Incident(10, "crash", None, ["process"], 0.0), compactions=0)
    assert told.state.status.last_incident == "Agent crashed (#10)"
    told.injection(InjectorStatus("sent", "restart after crash", 1.0, incident=10))
    assert told.state.status.last_incident == "Agent crashed (#10)"
    told.injection(InjectorStatus("acknowledged", "restart after crash", 3.0, incident=10))
    assert told.state.status.last_incident == ""
