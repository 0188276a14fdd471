"""The well-kept libraries the judge leans on, each loaded on first use.

`tether hook` and the other shell commands import the recognize layer without
judging anything, so none of these is imported before a judgement needs it:

* **pint** converts quantities (``200 ms`` is ``0.2 s``, ``15 minute`` is ``900 s``);
* **numerizer** reads number words (``fifteen``, ``two thousand``, ``a quarter``);
* **snowballstemmer** (the Snowball English stemmer) makes ``skipped`` and
  ``skipping`` one word with ``skip``;
* **python-dateutil** reads dates written any usual way (``30 June 2025``).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pint

# Kubernetes writes binary sizes without the B (512Mi); pint knows them as MiB.
_KUBERNETES_SIZES = ("Ki = KiB", "Mi = MiB", "Gi = GiB", "Ti = TiB", "KB = kB")


@functools.cache
def units() -> pint.UnitRegistry:
    """One unit registry for the process (building it takes ~0.2 s)."""
    import pint

    registry: pint.UnitRegistry = pint.UnitRegistry()
    for definition in _KUBERNETES_SIZES:
        registry.define(definition)
    return registry


@functools.lru_cache(maxsize=512)
def quantity_in_base(magnitude: float, unit: str) -> tuple[str, float] | None:
    """``(dimension, magnitude in base units)`` of ``magnitude unit``, or None when pint
    does not know the unit. Bytes and percent are both dimensionless to pint, so the
    dimension is named by the base unit then."""
    registry = units()
    try:
        value = registry.Quantity(magnitude, registry.parse_units(unit)).to_base_units()
    except Exception:  # pint raises its own errors for unknown or odd units
        return None
    dimension = str(value.dimensionality)
    if dimension == "dimensionless":
        dimension = str(value.units)
    return dimension, float(value.magnitude)


@functools.lru_cache(maxsize=1024)
def numerize(words: str) -> str:
    """Number words as digits: ``two thousand`` -> ``2000``, ``a quarter`` -> ``1/4``."""
    from numerizer import numerize as _numerize  # type: ignore[import-untyped]

    result: Any = _numerize(words)
    return str(result)


@functools.cache
def _stemmer() -> Any:
    import snowballstemmer  # type: ignore[import-untyped]

    return snowballstemmer.stemmer("english")


@functools.lru_cache(maxsize=8192)
def stem(word: str) -> str:
    """The Snowball stem of a lowercase word (``skipping`` -> ``skip``)."""
    return str(_stemmer().stemWord(word))


@functools.lru_cache(maxsize=512)
def date_key(text: str) -> str | None:
    """The calendar date ``text`` names as ISO text (``2025-06-30``), ``--06-30`` when it
    gives no year, or None when it names no date."""
    from datetime import datetime

    from dateutil import parser  # type: ignore[import-untyped]

    try:
        first = parser.parse(text, default=datetime(1901, 1, 1))
        second = parser.parse(text, default=datetime(1902, 2, 2))
    except (ValueError, OverflowError):
        return None
    if (first.month, first.day) != (second.month, second.day):  # no day or month given
        return None
    if first.year != second.year:
        return f"--{first.month:02d}-{first.day:02d}"
    return first.date().isoformat()


def warm() -> None:
    """Load every library now (on a worker thread): a judgement on the event loop, the
    loss audit of the first compaction that brings a summary, then does not build them."""
    units()
    numerize("one")
    stem("warm")
    date_key("30 June 2025")
