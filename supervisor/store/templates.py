"""The templates `tether init` writes: task.md and notes.md with their sections."""

from __future__ import annotations

TASK_TEMPLATE = """\
# Task

## Goal

{goal}

## Success criteria

<!-- how we know the goal is reached; one line each -->

## Constraints

<!-- what must not change, limits, rules; one line each -->
"""

NOTES_TEMPLATE = """\
# Notes

## Phase

starting

## Decisions

<!-- pinned: sent verbatim after every context loss; say why -->

## Rejected approaches

## Done

## Unproven

## Next step

"""

GOAL_PLACEHOLDER = "(no goal yet: write it here, or run `tether init --goal ...` in a new folder)"
