"""A program that logs every byte it reads, raw: the agent of the key tests.

``python byte_logger.py LOG [MODES]`` puts its terminal in raw mode (no echo, no line
discipline: the bytes as the terminal sent them), sets the DEC private MODES given
(e.g. ``2004`` for bracketed paste), says ``LOGGER READY`` and appends each read to
LOG until its input ends.
"""

from __future__ import annotations

import os
import sys
import tty


def main(log: str, modes: str = "") -> None:
    fd = sys.stdin.fileno()
    tty.setraw(fd)
    if modes:
        os.write(1, f"\x1b[?{modes}h".encode())
    os.write(1, b"LOGGER READY\r\n")
    with open(log, "ab", buffering=0) as out:
        while data := os.read(fd, 4096):
            out.write(data)


if __name__ == "__main__":
    main(*sys.argv[1:3])
