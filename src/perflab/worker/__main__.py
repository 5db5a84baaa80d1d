"""``python -m perflab.worker``: one worker process (see perflab.worker.jobs)."""

import sys

from perflab.worker.jobs import main

sys.exit(main())
