"""`tether profiles`: which agent profiles exist, where each came from, which are broken."""

from __future__ import annotations

import argparse
import json

from supervisor.config.config_dir import user_profiles_dir
from supervisor.config.profiles import list_profiles
from supervisor.shown import json_shown, shown_line


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON object per profile")


def run(args: argparse.Namespace) -> int:
    rows = list_profiles()
    if args.json:
        for row in rows:
            print(
                json_shown(
                    json.dumps(
                        {
                            "name": row.name,
                            "path": str(row.path),
                            "origin": row.origin,
                            "overrides": str(row.overrides) if row.overrides else None,
                            "error": row.error,
                        },
                        ensure_ascii=False,
                    )
                )
            )
        return 1 if any(row.error for row in rows) else 0
    width = max((len(row.name) for row in rows), default=4)
    for row in rows:
        note = f" (overrides {row.overrides})" if row.overrides else ""
        print(shown_line(f"{row.name:<{width}}  {row.origin:<7}  {row.path}{note}"))
        if row.error:
            print(f"{'':<{width}}  BROKEN   {shown_line(row.error)}")
    print(shown_line(f"\nuser profiles: {user_profiles_dir()}").replace("^J", "\n", 1))
    return 1 if any(row.error for row in rows) else 0
