"""The ``-c`` overrides that give one Codex run tether's hooks, trusted, touching no file.

Codex reads hooks from every config layer, the command line's included, and
runs an unmanaged hook only when a ``hooks.state`` entry holds the hash of
exactly that hook; without one it shows "Hooks need review", and its "Trust
all" writes the hashes into the user's ``~/.codex/config.toml``. So tether
passes the hooks and their trust together on the command line, for that run
only::

    codex -c 'hooks.SessionStart=[{hooks=[{type="command",command="...",timeout=10}]}]' ...
          -c 'hooks.state={"/<session-flags>/config.toml:session_start:0:0"={
                           trusted_hash="sha256:..."}, ...}'

Why not a private ``CODEX_HOME`` under ``.tether/agent/``: Codex keeps its
sessions, auth and bookkeeping there, so ``codex resume`` outside tether
would not find tether's sessions, and auth and config would have to be copied
or linked and kept in step. The overrides leave all of that where it is. Why
not ``--dangerously-bypass-hook-trust``: it would run every hook the user has
not trusted, not only tether's.

The hash is Codex's own (0.171.0, ``codex-rs/hooks`` discovery): SHA-256 of
the canonical JSON (sorted keys, no spaces) of the hook's normalized
identity ``{"event_name": <snake_case event>, "hooks": [{"type": "command",
"command": ..., "timeout": <seconds>, "async": false}]}`` (plus
``"additionalContextLimit"`` when it is set); the key is the
session-flags layer's synthetic path, the event, the group and handler index.
The e2e tier proves it against the real binary: a wrong hash brings the review
screen back and no hook runs.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING

from supervisor.agents.claude_settings import HOOK_TIMEOUT_S, hook_command

if TYPE_CHECKING:
    from supervisor.config.profiles import Profile

# Codex 0.171.0 fires all six; SessionEnd and Notification do not exist there.
# PostToolUse reports each tool's result (success or not) for the ledger.
HOOK_EVENTS = (
    "SessionStart",
    "PreCompact",
    "PostCompact",
    "UserPromptSubmit",
    "Stop",
    "PostToolUse",
)
# The label Codex uses for each event in trust keys and hashes.
EVENT_LABELS = {
    "SessionStart": "session_start",
    "PreCompact": "pre_compact",
    "PostCompact": "post_compact",
    "UserPromptSubmit": "user_prompt_submit",
    "Stop": "stop",
    "PostToolUse": "post_tool_use",
}
# Where Codex says hooks given with -c come from (its synthetic session-flags layer).
SESSION_FLAGS_SOURCE = "/<session-flags>/config.toml"
# Codex writes an additionalContext over about 2,500 tokens to $CODEX_HOME/hook_outputs/
# and gives the model a head-and-tail preview: the payload (up to the profile's budget)
# would lose its middle, and tether's answer would write into the user's folder. A limit
# of 0 hands the whole text to the model. Only the events that answer get it (Codex
# warns about the option on the others).
FULL_CONTEXT_EVENTS = frozenset({"SessionStart"})


# What tether says when the agent asks to review hooks (its profile's hooks_review marker).
REVIEW_PROBLEM = (
    "The agent asks to review hooks before it runs them. tether passes its own already "
    "trusted, for this run only: if the list shows `tether hook` commands, this agent "
    "version computes trust differently. Trusting writes into your own agent config; "
    "continuing without trusting leaves it as it is (tether then works from the screen "
    "and the transcript)."
)


def rehydrates_at_next_prompt(profile: Profile) -> bool:
    """Codex answers its SessionStart hook only when the next turn starts, and tether's
    hook then sends the payload with it: F6 before that would send it twice. Copilot CLI's
    hooks carry it with the next prompt too (:mod:`.copilot_answer`)."""
    late = {"codex_hooks", "copilot_hooks", "gemini_hooks"} & set(profile.integrations)
    return profile.auto_rehydrate and bool(late)


def toml_string(text: str) -> str:
    """``text`` as a TOML basic string (every control character escaped, as TOML requires)."""
    out = ['"']
    for char in text:
        if char == '"':
            out.append('\\"')
        elif char == "\\":
            out.append("\\\\")
        elif char < " " or char == "\x7f":
            out.append(f"\\u{ord(char):04X}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def trusted_hash(
    event: str, command: str, timeout: int = HOOK_TIMEOUT_S, context_limit: int | None = None
) -> str:
    """The ``trusted_hash`` Codex computes for one command hook with no matcher."""
    handler: dict[str, object] = {
        "type": "command",
        "command": command,
        "timeout": timeout,
        "async": False,
    }
    if context_limit is not None:
        handler["additionalContextLimit"] = context_limit
    identity = {"event_name": EVENT_LABELS[event], "hooks": [handler]}
    canonical = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def trust_key(event: str) -> str:
    """The ``hooks.state`` key of tether's (only) hook for ``event`` on the command line."""
    return f"{SESSION_FLAGS_SOURCE}:{EVENT_LABELS[event]}:0:0"


def config_overrides(work_dir: Path, argv: list[str] | None = None) -> list[str]:
    """``-c`` arguments: one per hook event running `tether hook EVENT`, then their trust."""
    args: list[str] = []
    trust: list[str] = []
    for event in HOOK_EVENTS:
        command = hook_command(event, work_dir, argv)
        limit = 0 if event in FULL_CONTEXT_EVENTS else None
        handler = f"type={toml_string('command')},command={toml_string(command)},"
        handler += f"timeout={HOOK_TIMEOUT_S}"
        if limit is not None:
            handler += f",additionalContextLimit={limit}"
        args += ["-c", f"hooks.{event}=[{{hooks=[{{{handler}}}]}}]"]
        state = f"{{trusted_hash={toml_string(trusted_hash(event, command, context_limit=limit))}}}"
        trust.append(f"{toml_string(trust_key(event))}={state}")
    args += ["-c", "hooks.state={" + ",".join(trust) + "}"]
    return args
