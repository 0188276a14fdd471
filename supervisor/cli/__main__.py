"""`python -m supervisor.cli`: the same entry point as the `tether` script."""

import sys

from supervisor.cli import main

sys.exit(main())
