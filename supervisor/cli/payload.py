"""`tether payload`: print the rehydrate payload exactly as it would be sent.

So that a person (or the agent) can see what a rehydration would say before
it happens: the text on stdout is the sanitized payload, byte for byte what
the injector would paste (followed by one newline); a one-line account of
tokens, budget and what was left out goes to stderr.
"""

from __future__ import annotations

import argparse
import sys

from supervisor.cli import add_dir_option
from supervisor.store.tether_dir import TetherDir

DEFAULT_PROFILE = "shell"


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    parser.add_argument(
        "--checkpoint", type=int, metavar="N", help="build it from checkpoint N (default: live)"
    )
    parser.add_argument(
        "--budget",
        type=_budget,
        metavar="T",
        help="token budget: a positive number of tokens, or `none` (default: the profile's)",
    )
    parser.add_argument(
        "--profile",
        metavar="NAME",
        help="whose preamble and budget (default: the profile of the last recorded session)",
    )
    parser.add_argument(
        "--no-incident", action="store_true", help="leave out the last incident and its audit"
    )
    add_dir_option(parser)


def _budget(text: str) -> int:
    """A budget of at least one token, or ``none`` (0 inside): a 0 or a negative number
    typed is more likely a mistake than a way to say "no budget"."""
    if text.strip().lower() == "none":
        return 0
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of tokens") from None
    if value < 1:
        raise argparse.ArgumentTypeError(
            f"{value} is not a budget: give a positive number of tokens, `none` for no "
            "budget, or leave --budget out for the profile's"
        )
    return value


def last_session_profile(tether: TetherDir) -> str | None:
    """The profile of the newest ``sessions/<stamp>-<profile>.cast``: the agent last run here."""
    try:
        names = sorted(p.name for p in tether.sessions.glob("*.cast"))
    except OSError:
        return None
    if not names:
        return None
    stem = names[-1][: -len(".cast")]
    parts = stem.split("-", 1)
    if len(parts) != 2 or not parts[1]:
        return None
    profile = parts[1]
    # A second session in the same second gets a numeric suffix ("-2"): drop it.
    head, _, tail = profile.rpartition("-")
    return head if head and tail.isdigit() else profile


def run(args: argparse.Namespace) -> int:
    from supervisor.config.profiles import load_profile
    from supervisor.errors import TetherError
    from supervisor.rehydrate.payload import build_payload, incident_record, latest_incident
    from supervisor.store import checkpoints

    tether = TetherDir.require(args.dir)
    if args.profile:
        profile = load_profile(args.profile)
    else:
        try:
            profile = load_profile(last_session_profile(tether) or DEFAULT_PROFILE)
        except TetherError:  # a guessed name that is no profile: the plain default
            profile = load_profile(DEFAULT_PROFILE)
    snapshot = None
    if args.checkpoint is not None:
        snapshot = checkpoints.load(tether, args.checkpoint)
    if args.no_incident:
        incident = None
    elif snapshot is not None:  # that checkpoint's incident, not whatever came after it
        number = _incident_number(snapshot.incident)
        incident = incident_record(tether, number) if number is not None else None
    else:
        incident = latest_incident(tether)
    payload = build_payload(
        tether, profile, checkpoint=snapshot, incident=incident, budget=args.budget
    )
    sys.stdout.write(payload.text + "\n")
    sys.stdout.flush()
    print(f"tether payload: {payload.describe()} (profile {profile.name})", file=sys.stderr)
    return 0


def _incident_number(value: object) -> int | None:
    """A checkpoint's incident field (a number, or text naming one) as the number."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lstrip("#").isdigit():
        return int(value.strip().lstrip("#"))
    return None
