"""tether's TOML files (profiles, keys.toml, notify.toml): what is wrong, at which line.

A person fixes a broken file faster when the message names the file and the line
(``notify.toml:2: after_busy_seconds must be ...``); each loader here says what it
checks, and this module finds the line and reads the small settings files.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from dataclasses import fields
from pathlib import Path
from typing import Any, TypeVar

from supervisor.errors import TetherError

Settings = TypeVar("Settings")

_HEADER = re.compile(r"^\s*\[\s*([^\]]+?)\s*\]")


def line_of(text: str, table: str | None, key: str) -> int | None:
    """The 1-based line where ``key`` is assigned inside ``[table]`` (None = top level)."""
    current: str | None = None
    key_re = re.compile(rf"""^\s*(?:{re.escape(key)}|"{re.escape(key)}"|'{re.escape(key)}')\s*=""")
    for number, line in enumerate(text.splitlines(), start=1):
        header = _HEADER.match(line)
        if header and not line.lstrip().startswith("[["):
            current = header.group(1).strip().strip("\"'")
            if table is not None and current == table and key == table:
                return number
            continue
        if current == table and key_re.match(line):
            return number
    if table is None:
        # a table given as a top-level key: point at its header
        for number, line in enumerate(text.splitlines(), start=1):
            if re.match(rf"^\s*\[\s*{re.escape(key)}\s*\]", line):
                return number
    return None


def parse_toml(text: str, path: Path) -> dict[str, Any]:
    """``text`` as TOML; not TOML is a :class:`TetherError` at ``path:line``."""
    try:
        return tomllib.loads(text)
    except RecursionError:  # arrays or tables nested thousands deep: no settings file is
        raise TetherError(
            f"{path}: not a settings file tether reads: its arrays or tables are nested too "
            "deep; fix or remove the file"
        ) from None
    except tomllib.TOMLDecodeError as error:
        message = str(error)
        found = re.search(r"line (\d+)", message)
        line = f":{found.group(1)}" if found else ""
        raise TetherError(
            f"{path}{line}: not valid TOML: {message}; fix or remove the file"
        ) from error


def load_settings(
    cls: type[Settings],
    path: Path,
    problem: Callable[[str, Any], str | None],
) -> Settings:
    """A flat settings file into the frozen dataclass ``cls``; no file gives the defaults.

    Each top-level key is a field of ``cls``; ``problem(key, value)`` says what is
    wrong with a value (``"must be true or false"``), or None. Every mistake stops
    with a message naming the file and the line, and what to do.
    """
    if not path.exists():
        return cls()
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as error:
        raise TetherError(
            f"{path}: not UTF-8 text (byte {error.start}); save it as UTF-8"
        ) from error
    except OSError as error:
        raise TetherError(f"{path}: cannot read it: {error.strerror}; fix or remove it") from error
    data = parse_toml(text, path)
    known = sorted(field.name for field in fields(cls))  # type: ignore[arg-type]
    for key, value in data.items():
        line = line_of(text, None, key)
        where = f"{path}:{line}" if line else str(path)
        if key not in known:
            raise TetherError(f"{where}: unknown key {key!r}; known: {', '.join(known)}")
        wrong = problem(key, value)
        if wrong:
            raise TetherError(f"{where}: {key} {wrong}")
    return cls(**data)
