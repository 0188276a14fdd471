"""Errors a user can cause, carried up to one place that prints them."""

from __future__ import annotations


class TetherError(Exception):
    """A problem the user can fix: the message names the file, the line and what to do.

    The CLI prints it without a traceback and exits with ``exit_code``.
    """

    exit_code = 2

    def __init__(self, message: str, *, exit_code: int | None = None) -> None:
        super().__init__(message)
        if exit_code is not None:
            self.exit_code = exit_code
