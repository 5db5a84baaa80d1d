"""``python -m perflab.bench.worker``: one worker process (perflab.bench.worker.dispatch; the jobs it
runs: perflab.bench.protocol)."""

import sys

from perflab.bench.worker.dispatch import main

sys.exit(main())
