"""A raw run notes the cursor shape of its last DECSCUSR (``CSI Ps SP q``), as the
pre-filter would: looked for from the end of the run, it must find what reading the
whole run finds, also among text full of " q" and numbers."""

from __future__ import annotations

import random
import re

from supervisor.terminal.raw_runs import _last_cursor_shape

EVERY_DECSCUSR = re.compile(rb"\x1b\[([0-9]*) q")
PIECES = [b"\x1b", b"[", b"1", b"2", b"0", b" ", b"q", b"a", b" q", b" q", b"\x1b[", b"\x1b[3 q"]


def test_the_last_shape_is_the_one_a_whole_reading_finds_last() -> None:
    rng = random.Random(7)
    for _ in range(20_000):
        run = b"".join(rng.choice(PIECES) for _ in range(rng.randint(0, 40)))
        every = EVERY_DECSCUSR.findall(run)
        assert _last_cursor_shape(run) == (every[-1] if every else None), run


def test_text_that_says_q_often_still_finds_the_shape_before_it() -> None:
    run = b"\x1b[5 q" + b"the quick question, a quiet queue " * 2000
    assert _last_cursor_shape(run) == b"5"
    assert _last_cursor_shape(b"a quiet queue " * 100) is None
