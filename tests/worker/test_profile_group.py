"""Profiling the sides of a comparison together (perflab.profile.pairing.profile_group): real
workers and real py-spy; and the pieces that made it faster (samples of no frame, jobs side by side)."""

import os
import subprocess
import sys
import time

from perflab.profile.spare_cpu import has_spare_cpu, idle_cpus


def test_a_machine_busy_on_every_cpu_has_no_cpu_to_spare_for_the_sampler():
    cpus = len(os.sched_getaffinity(0))
    busy = [
        subprocess.Popen([sys.executable, "-c", "import time\nend = time.time() + 30\nwhile time.time() < end: pass"])
        for _ in range(cpus)
    ]
    try:
        time.sleep(0.3)  # running
        idle = idle_cpus()
        assert idle is not None and 0.0 <= idle <= cpus - 0.5
        assert not has_spare_cpu()
    finally:
        for process in busy:
            process.kill()
            process.wait()
