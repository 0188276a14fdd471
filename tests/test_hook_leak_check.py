"""The session-level check of tests/hook_leaks.py fails a run that leaves a hook folder."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.locations import REPO

PROBE = "tests/probes/leaky_hook_folder.py"


def test_a_session_that_leaves_a_hook_folder_fails_and_names_the_test(tmp_path):
    temp = tmp_path / "tmp"
    temp.mkdir()
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", PROBE],
        cwd=REPO,
        env=dict(os.environ, TMPDIR=str(temp)),
        capture_output=True,
        text=True,
        timeout=120,
    )
    left = [p.name for p in temp.iterdir() if p.name.startswith("tether-hook-")]
    assert run.returncode == 1, run.stdout + run.stderr
    assert "1 passed" in run.stdout
    assert "hook socket folder(s) of this test process left behind" in run.stdout
    assert "test_that_forgets_to_stop_its_hook_server" in run.stdout
    assert len(left) == 1 and left[0] in run.stdout
