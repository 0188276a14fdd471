"""The TETHER_* variables are read in one typed place (supervisor/environment.py): a new
one is added there, with what it is for, not read ad hoc where it is needed."""

from __future__ import annotations

import re

from supervisor import environment
from tests.locations import REPO

NAME = re.compile(r"""["']TETHER_[A-Z_]+["']""")


def test_no_module_names_a_tether_variable_but_the_environment_module():
    named = {
        path.relative_to(REPO).as_posix(): NAME.findall(path.read_text())
        for folder in ("supervisor", "widgets")
        for path in (REPO / folder).rglob("*.py")
        if path.name != "environment.py"
    }
    assert {name: found for name, found in named.items() if found} == {}


def test_every_variable_is_read_into_its_typed_field():
    values = {name: f"value of {name}" for name in environment.NAMES}
    read = environment.current(values)
    assert sorted(read.__slots__) == sorted(  # type: ignore[attr-defined]
        name.removeprefix("TETHER_").lower() for name in environment.NAMES
    )
    for name in environment.NAMES:
        assert getattr(read, name.removeprefix("TETHER_").lower()) == values[name]
    assert environment.current({}).early_start_off is False
    assert environment.current({environment.EARLY_START: "0"}).early_start_off
