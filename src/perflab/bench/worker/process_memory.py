"""This process's peak memory, as the kernel counts it.

Standard library only: used in worker processes (perflab.bench.worker.counting, perflab.bench.commands).
"""

from __future__ import annotations

import sys


def peak_rss() -> int:
    """This process's peak resident memory in bytes.

    Linux's VmHWM belongs to this program alone; ``ru_maxrss`` there also keeps the peak of the
    parent process that forked the worker (seen: 104 MB for a 17 MB worker), so it is the fallback.
    """
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    import resource

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024  # KiB on Linux, bytes on macOS
