"""The payload's evidence: what the ledger says the agent did, and which claims it backs.

After a fold the agent believes its summary ("all tests pass"); this section gives it
tether's record instead: the checkout now, each verification's latest result and
whether it is still *current* (ran against this very checkout), the last commands
with their exit codes, the files touched since the task began, newest first. A Done
item that claims a verification with no current passing record is marked unverified.

Items come in the order they are given up for the budget: the last first.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from supervisor.recognize.verification import claimed_kinds
from supervisor.rehydrate.sanitize import sanitize
from supervisor.store.checkout import Checkout, current_checkout
from supervisor.store.ledger import Ledger, LedgerView

HEADING = (
    "## Evidence: tether's record of your actions "
    "(from your tool hooks; it outranks the conversation)"
)
PREAMBLE_LINE = (
    "The Evidence section below is tether's record of your actions (commands, exit codes, "
    "files, test results), taken from your tool hooks, not from the conversation: it "
    "outranks the conversation and any summary of it. A verification marked NOT CURRENT "
    "ran on an older state of the files: run it again before you rely on it."
)
COMMANDS_SHOWN = 10
FILES_SHOWN = 40
VERIFICATIONS_SHOWN = 12
UNVERIFIED = "[UNVERIFIED: no current passing {kind} run in tether's ledger]"
_TEXT_MAX = 160


@dataclass(slots=True)
class Evidence:
    """The section's items (each one line), most important first, and the claim marks."""

    items: list[str] = field(default_factory=list)
    passing_kinds: set[str] = field(default_factory=set)  # kinds with a current passing run
    checkout: Checkout | None = None

    @property
    def empty(self) -> bool:
        return not self.items

    def unbacked(self, text: str) -> list[str]:
        """The kinds of verification ``text`` claims that no current passing run backs
        ([] without a ledger: nothing to check against)."""
        if not self.items:
            return []
        return [kind for kind in claimed_kinds(text) if kind not in self.passing_kinds]

    def claim_lines(self, claims: list[tuple[str, str]]) -> list[str]:
        """An Evidence line for each summary (``(label, text)``) claiming an unbacked pass."""
        lines = []
        for label, text in claims:
            if text and (kinds := self.unbacked(text)):
                quoted = _short(text, 100)
                lines.append(
                    f'{label} says "{quoted}": UNVERIFIED, no current passing '
                    f"{'/'.join(kinds)} run in tether's ledger."
                )
        return lines

    def mark(self, item: str) -> str:
        """``item`` (a Done note) with the unverified mark if it claims an unbacked kind."""
        if not self.items:  # no ledger: nothing to check a claim against (and no regex)
            return item
        missing = [kind for kind in claimed_kinds(item) if kind not in self.passing_kinds]
        if not missing:
            return item
        return f"{item} " + UNVERIFIED.format(kind="/".join(missing))


def is_current(record: dict[str, Any], now: Checkout) -> bool:
    """Whether ``record`` ran against the checkout ``now`` (never for an unknown one)."""
    ran = Checkout.from_json(record.get("checkout"))
    return now.known and ran.known and ran == now


def passing_kinds(view: LedgerView, now: Checkout) -> set[str]:
    """The kinds of verification whose latest run of some command passed on ``now``."""
    kinds: set[str] = set()
    for record in view.verifications.values():
        verify = record.get("verify") or {}
        if record.get("ok") is True and is_current(record, now):
            kinds.add(str(verify.get("kind")))
    return kinds


def _short(text: Any, limit: int = _TEXT_MAX) -> str:
    flat = " ".join(sanitize(str(text)).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _clock(at: Any) -> str:
    text = str(at or "")
    return text[11:19] if len(text) >= 19 else text


def _ending(record: dict[str, Any]) -> str:
    if record.get("exit") is not None:
        return f"exit {record.get('exit')}"
    if record.get("error"):
        return f"error: {_short(record.get('error'), 60)}"
    return "ok" if record.get("ok") else "failed"


def evidence(
    tether_root: Path,
    work_dir: Path,
    *,
    now: Checkout | None = None,
    view: LedgerView | None = None,
) -> Evidence:
    """The evidence of ``tether_root``'s ledger against the checkout of ``work_dir`` now."""
    view = view if view is not None else Ledger(tether_root).view(keep=COMMANDS_SHOWN)
    if view.empty:
        return Evidence()
    now = now if now is not None else current_checkout(work_dir)
    out = Evidence(checkout=now, passing_kinds=passing_kinds(view, now))
    out.items.append(f"Checkout now: {now.short()}.")
    for command, record in list(view.verifications.items())[:VERIFICATIONS_SHOWN]:
        verify = record.get("verify") or {}
        verdict = "PASSED" if record.get("ok") is True else "FAILED"
        result = verify.get("result")
        said = f' "{_short(result, 100)}"' if result else ""
        ran = Checkout.from_json(record.get("checkout"))
        if is_current(record, now):
            currency = "CURRENT (ran on this checkout)"
        elif not now.known or not ran.known:
            currency = "currency unknown (no git checkout to compare)"
        else:
            currency = f"NOT CURRENT (ran on {ran.short()}; files changed since)"
        out.items.append(
            f"Verification ({verify.get('kind')}) `{_short(command, 100)}`: {verdict}, "
            f"{_ending(record)}{said}, at {_clock(record.get('at'))}: {currency}."
        )
    for record in reversed(view.recent[-COMMANDS_SHOWN:]):
        what = record.get("command")
        if what:
            out.items.append(
                f"Ran `{_short(what, 120)}` at {_clock(record.get('at'))}: {_ending(record)}."
            )
        elif record.get("paths"):
            paths = ", ".join(_short(p, 80) for p in record["paths"][:3])
            out.items.append(f"{record.get('tool')} {paths} at {_clock(record.get('at'))}.")
    for path, at in list(view.files.items())[:FILES_SHOWN]:
        out.items.append(f"File touched: {_short(path, 120)} (last at {_clock(at)}).")
    return out


@dataclass(frozen=True, slots=True)
class ClaimCheck:
    """A Done item that claims a verification, and the kinds no current passing run backs."""

    item: str
    kinds: tuple[str, ...]
    unverified: tuple[str, ...]


def check_claims(tether_root: Path, work_dir: Path, done: list[str]) -> list[ClaimCheck] | None:
    """Each Done item claiming a verification, checked against the ledger; None when there is
    no ledger at all (an agent without tool hooks: nothing to check a claim against)."""
    view = Ledger(tether_root).view(keep=1)
    if view.empty:
        return None
    claims = [(item, claimed_kinds(item)) for item in done]
    if not any(kinds for _, kinds in claims):
        return []
    backed = passing_kinds(view, current_checkout(work_dir))
    return [
        ClaimCheck(item, tuple(kinds), tuple(k for k in kinds if k not in backed))
        for item, kinds in claims
        if kinds
    ]
