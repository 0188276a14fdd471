"""libghostty-vt's declarations are parsed once into the user's cache, then only loaded."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from supervisor.terminal.backends import ghostty_class

pytestmark = pytest.mark.skipif(ghostty_class() is None, reason="pyghostty is not installed")

PROBE = "import supervisor.terminal.ghostty_ffi as f; print(sorted(f.cell_bits))"


def _load(cache) -> subprocess.CompletedProcess:
    env = dict(os.environ, XDG_CACHE_HOME=str(cache))
    return subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=60
    )


def test_the_module_is_built_once_quietly_and_then_loaded(tmp_path):
    first = _load(tmp_path)
    assert first.returncode == 0, first.stderr
    assert "content_tag" in first.stdout and "generating" not in first.stdout
    built = list((tmp_path / "tether").glob("ghostty_abi_*.py"))
    assert len(built) == 1
    stamp = built[0].stat().st_mtime_ns
    second = _load(tmp_path)
    assert second.returncode == 0 and second.stdout == first.stdout
    assert built[0].stat().st_mtime_ns == stamp  # loaded, not built again


def test_an_unwritable_cache_still_loads(tmp_path):
    blocked = tmp_path / "file-not-folder"
    blocked.write_text("")  # the cache folder cannot be made under a file
    result = _load(blocked)
    assert result.returncode == 0, result.stderr
    assert "content_tag" in result.stdout
