"""What a profiling session is asked for: samples, rate, frames, sampler, budget.

Kept apart from the session so that the command line can build settings (and show their defaults
in ``--help``) without importing the samplers and processors.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field

AUTO, PY_SPY, INPROCESS = "auto", "py-spy", "inprocess"
# Sampling rates that keep the target's slowdown small (benchmarks/profile_distortion.py, quiet,
# pinned, 12 pairs of 1 s windows): py-spy --nonblocking at 200 Hz +0.6% [-1.3, +2.6]; at 1 kHz
# +7.5% [-3.0, +19.1], so the faster rate is not free here even from another CPU. Native frames
# need py-spy to stop the target for each sample (ptrace, then unwinding): 1.4-1.7 ms a sample
# here, +15-21% at 100 Hz (benchmarks/sampler_pause.py), so they are sampled at 10 Hz, and a
# native profile's default budget is smaller to keep its wall time near a Python-frames one.
DEFAULT_RATE = {False: 200, True: 10}
DEFAULT_SAMPLES = {False: 2000, True: 500}  # per profile, or per side and case in a comparison
MAX_ROUNDS_FACTOR = 3
# How much wider than sampling alone a share's interval may be: with 5 runs the interval over runs
# (t with 4 degrees of freedom, a variance from 5 values) is up to 2.25 x the sampling floor 95
# times in 100 even when runs differ by sampling alone (simulated in tests/test_profile_group.py),
# so this is the precision of the former fixed budget on a quiet machine; runs that disagree more
# (a busy machine, shorter runs) get more rounds.
PRECISION_SLACK = 2.25
Z95 = 1.959964  # the normal quantile of a 95% interval (perflab.analysis.intervals.Z, without scipy at start-up)
INPROCESS_DESCRIPTION = "in-process (timer signal in the worker; Python frames only)"


@dataclass
class ProfileSettings:
    samples: int | None = None  # budget of samples of the operation, over all runs; None: DEFAULT_SAMPLES
    rate: int | None = None  # samples per second; None: DEFAULT_RATE for the frames collected
    native: bool = False  # also collect C frames (py-spy only)
    mode: str = "cpu"  # "cpu": running threads only; "wall": waiting threads too
    sampler: str = AUTO  # AUTO: py-spy, falling back to INPROCESS when it cannot attach
    # py-spy pauses the target for each sample unless --nonblocking (Python frames only: it cannot
    # unwind native stacks of a running process). Not pausing slows the target less and was as
    # accurate (benchmarks/profile_attribution.py, profile_distortion.py), so it is the default.
    blocking: bool = False
    min_runs: int = 5  # runs (fresh processes) at least: the unit of the share intervals
    # Comparisons profile in rounds (perflab.profile.pairing): after min_runs rounds, more follow
    # (up to MAX_ROUNDS_FACTOR x min_runs) while a frame's share is less precise than the budget of
    # samples promises (share_precision), e.g. when runs disagree on a busy machine.
    adaptive_rounds: bool = True
    max_time: float = 300.0  # seconds for the whole session
    timeout: float = 60.0  # seconds a worker may take to set up
    value_time: float = 0.005  # seconds per batch of calls inside measured_region
    python: str = sys.executable
    sys_path: list[str] = field(default_factory=list)  # imported first: a revision's worktree

    @property
    def effective_rate(self) -> int:
        return self.rate or DEFAULT_RATE[self.native]

    @property
    def effective_samples(self) -> int:
        return self.samples or DEFAULT_SAMPLES[self.native]

    @property
    def share_precision(self) -> float | None:
        """The 95% half-width every frame's share should reach: PRECISION_SLACK x what ``samples``
        samples give a 50% share by sampling alone (+-2.2 points for 2,000: +-4.9 here); None: not adaptive."""
        return PRECISION_SLACK * Z95 * 0.5 / math.sqrt(self.effective_samples) if self.adaptive_rounds else None
