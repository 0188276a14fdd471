"""`tether profiles`: which agent profiles exist, where each came from, which are broken."""

from __future__ import annotations

import argparse
import json

from supervisor.config.profiles import list_profiles, user_profiles_dir


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON object per profile")


def run(args: argparse.Namespace) -> int:
    rows = list_profiles()
    if args.json:
        for row in rows:
            print(
                json.dumps(
                    {
                        "name": row.name,
                        "path": str(row.path),
                        "origin": row.origin,
                        "overrides": str(row.overrides) if row.overrides else None,
                        "error": row.error,
                    }
                )
            )
        return 1 if any(row.error for row in rows) else 0
    width = max((len(row.name) for row in rows), default=4)
    for row in rows:
        note = f" (overrides {row.overrides})" if row.overrides else ""
        print(f"{row.name:<{width}}  {row.origin:<7}  {row.path}{note}")
        if row.error:
            print(f"{'':<{width}}  BROKEN   {row.error}")
    print(f"\nuser profiles: {user_profiles_dir()}")
    return 1 if any(row.error for row in rows) else 0
