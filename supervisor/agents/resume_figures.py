"""What Claude Code says about a resumed session's cost, in words for the one who decides.

Claude Code (2.1.286 and later) gives its SessionStart hook, on ``resume`` and ``fork``,
``seconds_since_last_response``, ``context_tokens``, ``prompt_cache_likely_expired`` and
``estimated_cache_write_usd``: whether carrying on costs a fresh write of the whole
context to the prompt cache, and about how much. tether records the hook call whole; this
turns those fields into one line for the Events tab and the banner after a restart,
where the user chooses between going on and starting fresh (``/clear`` and F6).
"""

from __future__ import annotations

from typing import Any

FIELDS = (
    "seconds_since_last_response",
    "context_tokens",
    "prompt_cache_likely_expired",
    "estimated_cache_write_usd",
)


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if value >= 0 else None


def _ago(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    if seconds < 48 * 3600:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} days"


def resume_figures(payload: dict[str, Any] | None) -> str | None:
    """``last reply 42 min ago · 180,000 tokens of context · prompt cache likely expired ·
    re-caching ≈ $0.54``, or None when the hook input has none of the fields."""
    if not isinstance(payload, dict) or not any(key in payload for key in FIELDS):
        return None
    parts: list[str] = []
    since = _number(payload.get("seconds_since_last_response"))
    if since is not None:
        parts.append(f"last reply {_ago(since)} ago")
    tokens = _number(payload.get("context_tokens"))
    if tokens is not None:
        parts.append(f"{int(tokens):,} tokens of context")
    expired = payload.get("prompt_cache_likely_expired")
    if expired is True:
        parts.append("prompt cache likely expired")
    elif expired is False:
        parts.append("prompt cache likely warm")
    cost = _number(payload.get("estimated_cache_write_usd"))
    if cost is not None:
        parts.append(f"re-caching ≈ ${cost:,.2f}")
    return " · ".join(parts) or None
