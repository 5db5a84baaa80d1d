"""``python -m perflab``: the command line."""

import sys

from perflab.cli import main

sys.exit(main())
