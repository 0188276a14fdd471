"""The SessionStart hook answer: the rehydrate payload, before anyone presses a key.

Claude Code puts ``hookSpecificOutput.additionalContext`` into the model's
context (agent-markers.md 1.2 and its Addendum), and Codex gives it to the
model as a developer message of the turn that fired the hook; ``tether hook
SessionStart`` prints it after a compaction or a clear when the profile has
``auto_rehydrate``.
"""

from __future__ import annotations

import json
import os
import time
from typing import TYPE_CHECKING, Any

from supervisor import environment
from supervisor.agents.turn_recovery import ANSWERED_KINDS, pointer, recovery_starting_this_turn
from supervisor.rehydrate.payload import build_payload, incident_record
from supervisor.store import checkpoints, fsio, notes, safe_git, trust
from supervisor.store.tether_dir import INCIDENT_KIND, TetherDir
from supervisor.times import iso, parse_time

if TYPE_CHECKING:
    from supervisor.rehydrate.live_notes import LiveNotes

# SessionStart sources answered with the payload, and the incident type each follows.
AUTO_SOURCES = {"compact": "compaction", "clear": "wipe"}
PROFILE_ENV = environment.PROFILE
DEFAULT_HOOK_PROFILE = "claude"


def session_start_answer(
    work_dir: str | os.PathLike[str],
    hook_input: dict[str, Any],
    *,
    profile_name: str | None = None,
    new_session: bool = False,
    from_next_prompt: bool = False,
    live: LiveNotes | None = None,
) -> str | None:
    """The stdout of ``tether hook SessionStart`` after a compaction or a clear, or ``None``.

    ``new_session``: a ``startup`` the caller found to be a new conversation in the
    running agent (Codex's ``/new``), answered as a wipe. Only when the profile
    (``$TETHER_PROFILE``, else "claude") has ``auto_rehydrate``, and never for a
    `.tether/` committed to git that the user has not said to trust
    (:mod:`supervisor.store.trust`); a checkpoint is taken first, as before every
    injection, and an ``auto_rehydrate`` event records what was sent, with the phase
    at that moment so the supervisor can watch for the agent's acknowledgement.
    When this turn's prompt is tether's own paste of the payload (F6 on Codex, whose
    hook fires as that turn starts), the answer is a one-line pointer to it instead,
    recorded as ``auto_rehydrate_skipped`` (:mod:`.turn_recovery`): one copy per loss.
    ``live``: the supervisor's parse of notes.md and task.md (None: parsed here, once).
    """
    from supervisor.config.profiles import load_profile

    source = hook_input.get("source")
    if source not in AUTO_SOURCES and not new_session:
        return None
    profile = load_profile(profile_name or environment.current().profile or DEFAULT_HOOK_PROFILE)
    if not profile.auto_rehydrate:
        return None
    if "gemini_hooks" in profile.integrations and not from_next_prompt:
        # Gemini CLI 0.61.0 took this answer after /clear and its model never saw it (e2e):
        # the first BeforeAgent after the loss carries the payload instead (.gemini_answer).
        return None
    tether = TetherDir.at(work_dir)
    untrusted = trust.warning(tether)
    if untrusted is not None:  # another person's notes: not pasted before the user says yes
        tether.record_event("auto_rehydrate_withheld", "hook", hook_source=source, why=untrusted)
        return None
    kind = "compaction" if source == "compact" and not new_session else "wipe"
    # Codex fires SessionStart(compact|clear) at the next turn, however late: its last
    # unanswered incident of that kind in this run is this loss, not only a recent one.
    late = bool({"codex_hooks", "copilot_hooks", "gemini_hooks"} & set(profile.integrations))
    now = time.time()
    incident = this_loss(tether, kind, now, within=_this_run(tether) if late else None)
    number = incident.get("number")
    pasted = recovery_starting_this_turn(tether, now)
    if pasted is not None:  # F6's payload is this turn's prompt: a second copy is no recovery
        tether.record_event(
            "auto_rehydrate_skipped",
            "hook",
            hook_source=source,
            session_id=hook_input.get("session_id"),
            incident=number,
            injection_at=pasted.get("at"),
            injection_reason=pasted.get("reason"),
            injection_incident=pasted.get("incident"),
        )
        answer = {
            "hookEventName": "SessionStart",
            "additionalContext": pointer(kind, number, pasted),
        }
        return json.dumps({"hookSpecificOutput": answer}, ensure_ascii=False)
    if live is None:
        from supervisor.rehydrate.live_notes import LiveNotes

        live = LiveNotes(tether)  # parsed once, for every build below
    # git's driver names and the checkout, read once for the checkpoint and every build.
    with safe_git.one_reading():
        snapshot = checkpoints.take(tether, "before auto rehydration", incident=number)
        payload = build_payload(tether, profile, checkpoint=snapshot, incident=incident, live=live)
        limit = profile.hook_context_limit
        for _ in range(4):  # a smaller budget drops older Done, Unproven, Rejected items first
            if not limit or len(payload.text) <= limit or payload.tokens <= 1:
                break
            budget = max(1, payload.tokens * limit * 95 // (len(payload.text) * 100))
            payload = build_payload(
                tether, profile, checkpoint=snapshot, incident=incident, budget=budget, live=live
            )
    tether.record_event(
        "auto_rehydrate",
        "hook",
        hook_source=source,
        **({"new_session": True} if new_session else {}),
        session_id=hook_input.get("session_id"),
        profile=profile.name,
        incident=number,
        checkpoint=snapshot.seq,
        tokens=payload.tokens,
        exact=payload.exact,
        encoding=payload.encoding,
        dropped=len(payload.dropped),
        over_budget=payload.over_budget,
        phase_before=notes.phase_of(live.of_texts(snapshot.task, snapshot.notes).notes),
    )
    answer = {"hookEventName": "SessionStart", "additionalContext": payload.text}
    return json.dumps({"hookSpecificOutput": answer}, ensure_ascii=False)


# Seconds within which the hook and the supervisor's fusion take a sighting for the same
# loss (fusion's window).
SAME_LOSS_WINDOW = 10.0


def this_loss(
    tether: TetherDir, kind: str, now: float | None = None, *, within: float | None = None
) -> dict[str, Any]:
    """The incident a ``SessionStart(compact|clear)`` hook answers: the loss that just happened.

    The hook often runs before the supervisor has recorded the compaction (nothing
    on screen yet, or an automatic one with nothing on screen at all), so the last
    incident would be the previous one. The last incident is this loss only when
    it is of this kind, recent, and no hook answered it yet; otherwise the hook
    records it, and the supervisor's fusion adopts that number when it sees the
    loss (:meth:`TetherDir.claim_incident`).
    """
    now = time.time() if now is None else now
    with tether.updating():
        answered, trigger = _since_last_incident(tether, now)
        event, _new = tether.claim_incident(
            kind,
            "hook",
            at=now,
            within=SAME_LOSS_WINDOW if within is None else within,
            taken=answered,
            trigger=trigger if kind == "compaction" else None,
            sources=["hook"],
            observed_at=iso(now),
        )
    return incident_record(tether, event.get("number")) or event


def _this_run(tether: TetherDir) -> float | None:
    """Seconds since the running supervisor took the folder's lock (None: no supervisor)."""
    from supervisor.store import lock as supervisor_lock

    state, info = supervisor_lock.inspect(tether)
    started = parse_time(info.started_at) if state == "held" and info else None
    return None if started is None else max(SAME_LOSS_WINDOW, time.time() - started.timestamp())


def _since_last_incident(tether: TetherDir, now: float) -> tuple[set[Any], str | None]:
    """From the last incident on (reading backwards): the incidents a hook already
    answered, and the trigger of a ``PreCompact`` hook call within the window."""
    answered: set[Any] = set()
    trigger = None
    for event in fsio.iter_jsonl_reversed(tether.events):
        kind = event.get("kind")
        if kind in ANSWERED_KINDS:  # with the payload, or with a pointer to F6's paste of it
            answered.add(event.get("incident"))
        elif kind == "hook" and event.get("event") == "PreCompact" and trigger is None:
            when = parse_time(event.get("at"))
            payload = event.get("payload") if isinstance(event.get("payload"), dict) else {}
            recent = when is not None and now - when.timestamp() <= SAME_LOSS_WINDOW
            if recent and payload.get("trigger") in ("manual", "auto"):
                trigger = payload["trigger"]
        elif kind == INCIDENT_KIND:
            break
    return answered, trigger
