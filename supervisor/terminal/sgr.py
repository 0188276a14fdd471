"""Colon SGR rewritten to the semicolon form every backend parses.

Programs send truecolour as ``38:2::r:g:b`` (ITU T.416) or ``38:2:r:g:b``, and
underline styles as ``4:3``; avt drops ``4:3`` underlines and reads
``58;2;r;g;b`` (underline colour) as attributes, so these are rewritten before
any backend sees them.
"""

from __future__ import annotations

__all__ = ["normalize_sgr"]


def _int(text: str, default: int = 0) -> int:
    return int(text) if text else default


def normalize_sgr(params: str) -> str:
    """Rewrite SGR parameters into the plain semicolon form every backend parses.

    Colon sub-parameters become separate semicolon parameters (``38:2::1:2:3``
    -> ``38;2;1;2;3``), underline styles collapse to on/off, underline colour is
    dropped with its arguments, and numbers are clamped so they cannot overflow.
    """
    out: list[str] = []
    items = params.split(";")
    i = 0
    n = len(items)
    while i < n:
        item = items[i]
        i += 1
        if ":" in item:
            sub = item.split(":")
            head = sub[0]
            if head in ("38", "48"):
                if len(sub) >= 2 and sub[1] == "5" and len(sub) >= 3:
                    out += [head, "5", str(min(_int(sub[2]), 255))]
                elif len(sub) >= 2 and sub[1] == "2":
                    rgb = sub[3:6] if len(sub) >= 6 else sub[2:5]
                    if len(rgb) == 3:
                        out += [head, "2", *(str(min(_int(c), 255)) for c in rgb)]
            elif head == "4":
                style = sub[1] if len(sub) > 1 else ""
                out.append("24" if style == "0" else "4")
            # 58 (underline colour) and unknown colon groups are dropped.
            continue
        code = _int(item[:6]) if item.isdigit() else 0
        if code in (38, 48, 58) and i < n and items[i] in ("2", "5"):
            kind = items[i]
            argc = 3 if kind == "2" else 1
            args = items[i + 1 : i + 1 + argc]
            i += 1 + argc
            if code == 58 or len(args) < argc:
                continue
            out += [
                str(code),
                kind,
                *(str(min(_int(a[:6]) if a.isdigit() else 0, 255)) for a in args),
            ]
            continue
        if code in (58, 59):
            continue
        out.append(str(min(code, 9999)))
    return ";".join(out)


def conceals(params: str, concealed: bool) -> bool:
    """Whether text is concealed after SGR ``params`` (semicolon form), given ``concealed``
    before: 8 conceals, 28 and a reset reveal; colour arguments are skipped."""
    items = params.split(";")
    i = 0
    while i < len(items):
        p = items[i].lstrip("0") or "0"
        if p == "0":
            concealed = False
        elif p == "8":
            concealed = True
        elif p == "28":
            concealed = False
        elif p in ("38", "48", "58") and i + 1 < len(items):
            i += 2 if items[i + 1] == "5" else 4 if items[i + 1] == "2" else 0
        i += 1
    return concealed


def sgr_conceals(params: str) -> bool:
    """Whether text is concealed after the SGR ``params`` (either form), from a pen that
    did not conceal: as the pre-filter reads it (an 8 that is a colour's argument, as in
    ``38;5;8`` or ``38;2;116;168;8``, does not conceal)."""
    if ":" in params or "58" in params:
        params = normalize_sgr(params)
    return conceals(params, False)


def blanked(text: str) -> str:
    """Concealed text as blanks of its width; the controls in it still act."""
    from wcwidth import wcwidth

    return "".join(c if "\x07" <= c <= "\x0f" else " " * max(0, wcwidth(c)) for c in text)
