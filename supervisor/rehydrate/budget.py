"""Cutting the parts of a payload to a token budget, in time linear in the notes.

Notes are written by the agent and by anything that can touch `.tether/`, so a
section may be megabytes long. Counting tokens is the expensive step (tiktoken's
merges are slow on long runs without spaces), so nothing here counts more text
than could fit: a text is counted on a prefix a few times the budget long, a
list from the end it keeps until the allowance is spent. The cost is then set
by the budget, not by the size of the notes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from supervisor.rehydrate.tokens import TokenCount

Counter = Callable[[str], TokenCount]

#: Characters looked at per token of allowance: more than a token spans in real text,
#: so a prefix this long holds at least the allowance unless the text is short.
CHARS_PER_TOKEN = 8


@dataclass(slots=True)
class Cut:
    """What became of one part: its text (or kept items) and whether something was left out."""

    text: str = ""
    items: list[str] | None = None
    left_out: int = 0  # items left out (lists) or 1 if a text was cut
    tokens: int = 0


def demand_of_text(text: str, allowance: int, count: Counter) -> int:
    """Tokens ``text`` needs, counted on a prefix at most (over ``allowance``: too many)."""
    if not text:
        return 0
    return count(text[: max(allowance, 1) * CHARS_PER_TOKEN]).n


def cut_text(text: str, allowance: int, count: Counter) -> Cut:
    """``text`` whole if it fits ``allowance`` tokens, else its longest head that does,
    ended at a line or word break where one is near."""
    if not text:
        return Cut()
    if allowance <= 0:
        return Cut("", left_out=1)
    head = text[: allowance * CHARS_PER_TOKEN]
    tokens = count(head).n
    if tokens <= allowance and len(head) == len(text):
        return Cut(text, tokens=tokens)
    length = len(head)
    while tokens > allowance and length > 0:
        length = min(length - 1, int(length * allowance / tokens * 0.95))
        tokens = count(text[:length]).n
    head = text[:length]
    brk = max(head.rfind("\n"), head.rfind(" "))
    if brk >= length * 0.8:
        head = head[:brk]
    head = head.rstrip()
    return Cut(head, left_out=1, tokens=count(head).n if head else 0)


def keep_items(
    items: list[str],
    allowance: int,
    count: Counter,
    render: Callable[[str], str],
    *,
    newest: bool,
    cut_oversize: bool = True,
) -> Cut:
    """As many whole items as fit ``allowance`` tokens (as ``render`` shows them), in order.

    ``newest``: keep from the end (older items are given up first), else from the start.
    With ``cut_oversize``, an item too long for the whole allowance alone is cut rather
    than lost, if it is the first one considered.
    """
    order = range(len(items) - 1, -1, -1) if newest else range(len(items))
    kept: list[int] = []
    spent = 0
    cut_first: str | None = None
    for index in order:
        item = items[index]
        cost = count(render(item[: max(allowance, 1) * CHARS_PER_TOKEN])).n
        if spent + cost > allowance:
            if cut_oversize and not kept and allowance > 0:
                cut_first = cut_text(item, max(allowance - 8, 1), count).text
                if cut_first:
                    kept.append(index)
                    spent = allowance
            break
        kept.append(index)
        spent += cost
    kept.sort()
    chosen = [items[i] for i in kept]
    if cut_first is not None and chosen:
        where = 0 if newest else len(chosen) - 1
        chosen[where] = cut_first + " … (cut)"
    return Cut(items=chosen, left_out=len(items) - len(kept), tokens=spent)


def water_fill(demands: dict[str, int], available: int) -> dict[str, int]:
    """Share ``available`` tokens among parts: small ones whole, the rest split evenly."""
    shares: dict[str, int] = {}
    remaining = max(available, 0)
    waiting = sorted(demands.items(), key=lambda item: item[1])
    for position, (name, demand) in enumerate(waiting):
        share = remaining // (len(waiting) - position)
        shares[name] = min(demand, share)
        remaining -= shares[name]
    return shares
