"""The repository stands alone: no test, benchmark or script reaches outside the checkout.

A user's fresh clone has nothing beside it, so a fixture read from ``../shared`` (or any
path above the repository) fails there and nowhere else. This reads every file under
``tests/`` and ``bench/`` and the build files, and fails on any such path.
"""

from __future__ import annotations

import re

from tests.locations import CAPTURES, REPO, SCREENS

SCANNED = ("tests", "bench")
BUILD_FILES = ("Makefile", ".ci/run", "pyproject.toml")
TEXT_SUFFIXES = {".py", ".md", ".toml", ".txt", ".cfg", ".sh", ""}

# A path that climbs out: "../", a folder named shared beside the checkout, or a
# `parents[N]` / `.parent` chain on __file__ that rises above the repository.
CLIMB = re.compile(r"(?<!\.)\.\./|[\"'/]shared[\"'/]|\bREPO\.parent\b|\bROOT\.parent\b")
PARENTS = re.compile(r"__file__\)(?:\.resolve\(\))?\.parents\[(\d+)\]")
PARENT_CHAIN = re.compile(r"__file__\)(?:\.resolve\(\))?((?:\.parent)+)\b")


def scanned_files():
    for folder in SCANNED:
        for path in sorted((REPO / folder).rglob("*")):
            if not path.is_file() or "__pycache__" in path.parts or ".cache" in path.parts:
                continue
            if CAPTURES in path.parents:  # recorded bytes: data, not paths the code opens
                continue
            if path.suffix in TEXT_SUFFIXES:
                yield path
    for name in BUILD_FILES:
        yield REPO / name


def climbs_out(path, text: str) -> list[str]:
    rel = path.relative_to(REPO)
    depth = len(rel.parts) - 1  # parents[depth] is the repository itself
    found = [f"{rel}: {m.group(0)!r}" for m in CLIMB.finditer(text)]
    found += [
        f"{rel}: parents[{m.group(1)}] is above the repository"
        for m in PARENTS.finditer(text)
        if int(m.group(1)) > depth
    ]
    found += [
        f"{rel}: {m.group(1)} is above the repository"
        for m in PARENT_CHAIN.finditer(text)
        if m.group(1).count(".parent") > depth + 1
    ]
    return found


def test_no_file_under_tests_or_bench_names_a_path_outside_the_checkout():
    this = REPO / "tests" / "test_stands_alone.py"
    offenders = [
        line
        for path in scanned_files()
        if path != this
        for line in climbs_out(path, path.read_text(errors="replace"))
    ]
    assert not offenders, "paths outside the checkout:\n" + "\n".join(offenders)


def test_the_guard_catches_each_way_out(tmp_path):
    """The scanner itself: each form of path it must refuse, at the depth it is written."""
    fake = REPO / "tests" / "some" / "test_x.py"  # depth 2: parents[2] is above the repo
    for text in (
        'CAPTURES = Path(__file__).resolve().parents[3] / "shared" / "captures"',
        "data = open('../shared/captures/cc-clear.raw')",
        "p = Path(__file__).parent.parent.parent.parent",
        "HOME = REPO.parent / 'x'",
    ):
        assert climbs_out(fake, text), text
    for text in ("p = Path(__file__).resolve().parents[2] / 'x'", "Path(__file__).parent.parent"):
        assert not climbs_out(fake, text), text


def test_every_capture_and_its_reference_screen_are_in_the_repository():
    raws = sorted(p.stem for p in CAPTURES.glob("*.raw"))
    assert len(raws) >= 12
    for name in raws:
        for suffix in (".cast", ".events.json"):
            assert (CAPTURES / f"{name}{suffix}").is_file(), f"{name}{suffix}"
        assert (SCREENS / f"{name}.txt").is_file(), f"screens/{name}.txt"
    assert (CAPTURES / "README.md").is_file()
