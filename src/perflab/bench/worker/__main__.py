"""``python -m perflab.bench.worker``: one worker process (see perflab.bench.worker.jobs)."""

import sys

from perflab.bench.worker.jobs import main

sys.exit(main())
