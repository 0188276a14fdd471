"""When two specifics say the same, and when one says something else in its place."""

from __future__ import annotations

import dataclasses
import difflib
import re

from supervisor.recognize.judge.specifics import (
    DATE,
    IDENTIFIER,
    NAME,
    NUMBER,
    QUANTITY,
    QUOTED,
    TIME,
    VERSION,
    Specific,
    is_media_type,
)

_SIZE_PREFIX = (0.9, 1.12)  # 4 GB and 4 GiB: the same number of a binary or decimal size


def same(pinned: Specific, other: Specific) -> bool:
    """Whether ``other`` states ``pinned``'s value, in any notation."""
    kinds = {pinned.kind, other.kind}
    if kinds <= {QUANTITY, NUMBER}:
        keys = (pinned.dimension, other.dimension)
        if all(k.startswith("key:") for k in keys) and keys[0] != keys[1]:
            return False  # minAvailable 2 is not maxUnavailable 2, though both are 2
        if pinned.scope and other.scope and pinned.scope != other.scope:
            return False  # 25 MB per file is not 25 MB per request
    if pinned.key == other.key:
        return True
    if kinds <= {QUANTITY, NUMBER}:
        return _same_amount(pinned, other)
    if kinds == {NUMBER, VERSION}:  # "drop Node 16 and 18": 18 is Node 18
        number, version = (pinned, other) if pinned.kind == NUMBER else (other, pinned)
        return not number.dimension and _version_text(version.key) == _plain_number(number)
    if kinds == {VERSION}:
        return _same_version(pinned, other)
    if kinds <= {IDENTIFIER, QUOTED, NAME}:
        return _same_name(pinned.key, other.key)
    if kinds == {DATE}:
        return _same_date(pinned.key, other.key)
    if kinds == {TIME}:  # 14:00 and 2 PM; 14:00 UTC is not 14:00 CET
        clock_a, _, zone_a = pinned.key.partition("@")
        clock_b, _, zone_b = other.key.partition("@")
        return clock_a == clock_b and (not zone_a or not zone_b or zone_a == zone_b)
    return False


def same_amount_elsewhere(pinned: Specific, other: Specific) -> bool:
    """Whether ``other`` is ``pinned``'s amount counted per something else."""
    if not (pinned.scope and other.scope) or pinned.scope == other.scope:
        return False
    return same(dataclasses.replace(pinned, scope=""), dataclasses.replace(other, scope=""))


def _same_amount(pinned: Specific, other: Specific) -> bool:
    if pinned.kind == QUANTITY and other.kind == QUANTITY:
        if pinned.dimension != other.dimension or pinned.base is None or other.base is None:
            return False
        if abs(pinned.base - other.base) <= 1e-9 * max(abs(pinned.base), 1e-12):
            return True
        ratio = other.base / pinned.base if pinned.base else 0.0
        return pinned.number == other.number and _SIZE_PREFIX[0] <= ratio <= _SIZE_PREFIX[1]
    # a number said without its unit is the pinned value when the number is the same
    # ("max-age=60" and "60 s", "periodSeconds: 5" and "5 seconds")
    if pinned.number is not None and pinned.number == other.number:
        return True
    setting = pinned if pinned.dimension.startswith("key:") else other
    measured = other if setting is pinned else pinned
    if setting.dimension.startswith("key:") and measured.kind == QUANTITY:
        # "max-age=600" for "10 minutes": a setting's number in a usual unit of the quantity
        return _in_usual_unit(setting.number, measured)
    share = pinned if pinned.kind == QUANTITY else other
    plain = other if share is pinned else pinned
    # "10%" and "a tenth"
    return (
        share.dimension == "dimensionless"
        and share.base is not None
        and (plain.number is not None and abs(share.base - plain.number) < 1e-9)
    )


_USUAL_UNITS = {
    "[time]": (1.0, 1e-3, 60.0, 3600.0),  # seconds, milliseconds, minutes, hours
    "bit": (8.0, 8e3, 8 * 1024.0, 8e6, 8 * 1024.0**2, 8e9, 8 * 1024.0**3),
}


def _in_usual_unit(number: float | None, measured: Specific) -> bool:
    if number is None or measured.base is None:
        return False
    for size in _USUAL_UNITS.get(measured.dimension, ()):
        if abs(measured.base / size - number) <= 1e-9 * max(number, 1.0):
            return True
    return False


def _same_version(pinned: Specific, other: Specific) -> bool:
    if pinned.dimension and other.dimension and pinned.dimension != other.dimension:
        return False
    return _version_text(pinned.key) == _version_text(other.key)


def _plain_number(specific: Specific) -> str:
    value = specific.number
    if value is None:
        return ""
    return str(int(value)) if value == int(value) else f"{value:g}"


def _version_text(key: str) -> str:
    return key.rsplit(":", 1)[-1]


def _same_name(pinned: str, other: str) -> bool:
    a, b = _bare(pinned), _bare(other)
    if a == b:
        return True
    if "/" in a and "/" in b:  # a path and the same path from another folder
        return a.endswith("/" + b) or b.endswith("/" + a)
    return False


def _bare(key: str) -> str:
    value = key.split(":", 1)[-1]
    return value.lstrip("-$").strip("`'\"").rstrip(".,;:")


def _same_date(pinned: str, other: str) -> bool:
    if pinned.startswith("--") or other.startswith("--"):
        return pinned[-5:] == other[-5:]
    return False


def replaces(pinned: Specific, other: Specific) -> bool:
    """Whether ``other`` could be what a text says *instead of* ``pinned``: the same kind
    of value, measured the same way, but not the same."""
    if same(pinned, other):
        return False
    if pinned.kind == QUANTITY:
        if other.kind == QUANTITY:
            return pinned.dimension == other.dimension
        return other.kind == NUMBER and other.dimension.startswith("key:")
    if pinned.kind == NUMBER:
        if other.kind not in (NUMBER, QUANTITY):
            return False
        if pinned.dimension.startswith("key:"):
            if other.dimension.startswith("key:") and other.dimension != pinned.dimension:
                # another setting of a like name: maxUnavailable for minAvailable
                ratio = difflib.SequenceMatcher(None, pinned.dimension, other.dimension).ratio()
                return ratio >= 0.7
            return other.dimension == pinned.dimension
        if pinned.dimension.startswith("count:"):
            return other.dimension == pinned.dimension
        return other.kind == NUMBER and not other.dimension
    if pinned.kind == VERSION:
        return other.kind == VERSION and (other.dimension == pinned.dimension)
    if pinned.kind in (DATE, TIME):
        return other.kind == pinned.kind
    if pinned.kind == IDENTIFIER:
        return other.kind == IDENTIFIER and (
            _similar_identifier(pinned.key, other.key) or _other_address(pinned.key, other.key)
        )
    return False


def _other_address(pinned: str, other: str) -> bool:
    """``noreply@acme.io`` for ``noreply@mail.acme.io``: two mail addresses with the same
    mailbox or the same domain."""
    if pinned.count("@") != 1 or other.count("@") != 1:
        return False
    box_a, domain_a = pinned.split("@")
    box_b, domain_b = other.split("@")
    return box_a == box_b or domain_a == domain_b


_PARTS = re.compile(r"[a-z]+|\d+")


def _similar_identifier(pinned: str, other: str) -> bool:
    """``us-west-2`` for ``us-east-2``, ``E.123`` for ``E.164``: the same shape, one part
    different."""
    a, b = _bare(pinned), _bare(other)
    parts_a, parts_b = _PARTS.findall(a), _PARTS.findall(b)
    if len(parts_a) != len(parts_b) or len(parts_a) < 2:
        return False
    shape_a = re.sub(r"[a-z0-9]+", "x", a)
    shape_b = re.sub(r"[a-z0-9]+", "x", b)
    if shape_a != shape_b:
        return False
    differing = sum(x != y for x, y in zip(parts_a, parts_b, strict=True))
    return differing == 1 and difflib.SequenceMatcher(None, a, b).ratio() >= 0.5


def shaped_like(pinned: Specific, other: Specific) -> bool:
    """Two identifiers of one shape (``us-west-2`` and ``eu-west-1``): a label that names
    the same thing makes one the other's replacement."""
    if pinned.kind != IDENTIFIER or other.kind != IDENTIFIER or same(pinned, other):
        return False
    a, b = _bare(pinned.key), _bare(other.key)
    return re.sub(r"[a-z]+", "a", re.sub(r"\d+", "0", a)) == re.sub(
        r"[a-z]+", "a", re.sub(r"\d+", "0", b)
    ) and bool(re.search(r"[-_./]", a))


def search_written(pinned: Specific, text: str) -> bool:
    """Whether a name, identifier or quoted string of ``pinned`` is in ``text`` as written
    (any case; a flag without its dashes; a path's last parts)."""
    value = _bare(pinned.key)
    if not value:
        return False
    lowered = text.lower()
    candidates = [value]
    if pinned.kind == IDENTIFIER and "/" in value:
        parts = value.strip("/").split("/")
        if len(parts) >= 2:
            candidates.append("/".join(parts[-2:]))
    if pinned.kind == IDENTIFIER and is_media_type(value):
        candidates.append(value.split("/", 1)[1])  # image/png said as PNG
    if pinned.kind == NAME:
        candidates.append(value.rstrip("s"))
    if pinned.kind in (IDENTIFIER, QUOTED) and re.fullmatch(r"\*\.\w+", value):
        candidates.append(value[1:])  # *.woff2 said as .woff2 files
    if pinned.kind == IDENTIFIER and re.fullmatch(r"[a-z0-9]+(?:[-_][a-z0-9]+)+", value):
        candidates.append(re.sub(r"[-_]", " ", value))  # orders_dlq said as "orders dlq"
    tail = r"(?![\w])(?!-\w)" if pinned.kind == IDENTIFIER else r"(?![\w])"
    for candidate in candidates:
        if candidate and re.search(rf"(?<![\w]){re.escape(candidate)}{tail}", lowered):
            return True
    if pinned.kind == NAME and len(value) >= 4:
        # Dockerfile and Docker, Postgres and postgresql: one name holds the other
        for word in re.findall(r"[a-z][a-z0-9]{3,}", lowered):
            if value.startswith(word) or word.startswith(value):
                return True
    return False
