"""What a profiling session is asked for: samples, rate, frames, sampler, budget.

Kept apart from the session so that the command line can build settings (and show their defaults
in ``--help``) without importing the samplers and processors.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field

AUTO, PY_SPY, INPROCESS, PERF = "auto", "py-spy", "inprocess", "perf"
# Samples per second when --rate is not given, by how a sample is taken:
# - OWN_CPU: py-spy --nonblocking on a spare CPU beside the pinned target reads its memory without
#   stopping it or taking its CPU (perflab.profile.spare_cpu), so 2,000 samples take 2 s, not 10.
# - SHARED: a sample that stops the target (py-spy --blocking ~0.8 ms here, the in-process timer
#   runs in it), or a sampler whose CPU use lands on the target's CPU (one CPU, a busy machine,
#   whole programs: not pinned) costs the target time per sample: 200 Hz.
# - NATIVE: unwinding C frames stops the target 1.4-1.7 ms a sample (+15-21% at 100 Hz here), so
#   10 Hz, and a native profile's default budget is smaller to keep its wall time near a Python one.
# - IN_KERNEL: perf samples in the kernel and copies the stack without stopping the target (it unwinds
#   afterwards, on another CPU), Python and native frames alike (perflab.profile.perf_sampler): 1 kHz.
OWN_CPU, SHARED, NATIVE, IN_KERNEL = "own CPU", "shared", "native", "in the kernel"
DEFAULT_RATE = {OWN_CPU: 1000, SHARED: 200, NATIVE: 10, IN_KERNEL: 1000}
DEFAULT_SAMPLES = {False: 2000, True: 500}  # per profile, or per side and case in a comparison (True: py-spy --native)
# Runs (fresh processes) of a profile: the unit of its shares' intervals. With the budget fixed, more
# runs of fewer samples narrow a share's t interval (t quantile 2.78 with 5 runs, 2.36 with 8) for
# ~0.13 s of py-spy start and stop per run at 1 kHz (json_dumps, benchmarks/profile_speed.py).
DEFAULT_RUNS = 8
PERF_RUNS = 5  # runs under perf at least: of a native program (perflab.profile.native_perf), or of --sampler perf
MAX_ROUNDS_FACTOR = 3
# How much wider than sampling alone a share's interval may be: with 5 runs the interval over runs
# (t with 4 degrees of freedom, a variance from 5 values) is up to 2.25 x the sampling floor 95
# times in 100 even when runs differ by sampling alone (simulated in tests/simulation/test_profile_group.py),
# so this is the precision of the former fixed budget of 5 runs on a quiet machine; runs that
# disagree more (a busy machine, shorter runs) get more rounds. The promise is kept as it was with
# 8 runs, whose intervals from sampling alone stay further below it (up to ~1.7 x the floor).
PRECISION_SLACK = 2.25
Z95 = 1.959964  # the normal quantile of a 95% interval (perflab.analysis.intervals.Z, without scipy at start-up)
# The views of an allocation profile (perflab profile --memory, perflab.profile.allocations): what a
# call path's weight is. Per call except the peak, which is the most memory held at one moment.
MEMORY_VIEWS = {
    "allocated": "bytes allocated",
    "allocations": "allocations",
    "peak": "bytes live at the peak",
    "held": "bytes still held after the calls",
}
PER_CALL_VIEWS = ("allocated", "allocations", "held")  # divided by the calls; the peak is a moment's
DEFAULT_MEMORY_RUNS = 5  # runs (fresh processes) of an allocation profile: the unit of its per-call intervals
INPROCESS_DESCRIPTION = "in-process (timer signal in the worker; Python frames only)"


@dataclass
class ProfileSettings:
    samples: int | None = None  # budget of samples of the operation, over all runs; None: DEFAULT_SAMPLES
    rate: int | None = None  # samples per second; None: DEFAULT_RATE for how samples are taken (rate_for)
    native: bool = False  # also collect C frames (py-spy --native, or perf)
    mode: str = "cpu"  # "cpu": running threads only; "wall": waiting threads too
    lines: bool = False  # Python frames labelled by the line running (a line heat map), not the function's first line
    # AUTO: perf for native frames where it can (perflab.profile.perf_sampler), else py-spy, falling back
    # to INPROCESS when it cannot attach
    sampler: str = AUTO
    # py-spy pauses the target for each sample unless --nonblocking (Python frames only: it cannot
    # unwind native stacks of a running process). Not pausing slows the target less and was as
    # accurate (benchmarks/profile_attribution.py, profile_distortion.py), so it is the default.
    blocking: bool = False
    min_runs: int | None = (
        None  # runs (fresh processes) at least: the unit of the share intervals; None: effective_runs
    )
    # Comparisons profile in rounds (perflab.profile.pairing): after min_runs rounds, more follow
    # (up to MAX_ROUNDS_FACTOR x min_runs) while a frame's share is less precise than the budget of
    # samples promises (share_precision), e.g. when runs disagree on a busy machine.
    adaptive_rounds: bool = True
    # A CPU idle enough for py-spy beside the pinned target's (perflab.profile.spare_cpu): the fast
    # default rate. Looked at once per session (None: not yet), so that its runs share one rate.
    spare_cpu: bool | None = None
    # Bytes of stack perf copies per sample (perflab.profile.perf_sampler.STACK_DUMP); None: the default.
    # A session grows it after a run whose stacks did not fit, and passes it on to the side's next round.
    stack_dump: int | None = None
    max_time: float = 300.0  # seconds for the whole session
    timeout: float = 60.0  # seconds a worker may take to set up
    # --max-time: a worker still setting up, or still in its run past both this many seconds after
    # it started and twice the run's duration (a call that hangs), is stopped (perflab.measure.budget),
    # so a hang does not wait ``timeout``; None: ``timeout`` only.
    # Per worker, not per session: a session's later runs start after its earlier ones.
    budget: float | None = None
    value_time: float = 0.005  # seconds per batch of calls inside measured_region
    python: str = sys.executable
    sys_path: list[str] = field(default_factory=list)  # imported first: a revision's worktree

    def rate_for(self, sampler: str) -> int:
        """``rate``, else the default for ``sampler`` (PY_SPY or INPROCESS) and ``spare_cpu``."""
        if self.rate:
            return self.rate
        if sampler == PERF:
            return DEFAULT_RATE[IN_KERNEL]
        if self.native:
            return DEFAULT_RATE[NATIVE]
        never_stops = sampler == PY_SPY and not self.blocking
        return DEFAULT_RATE[OWN_CPU if never_stops and self.spare_cpu else SHARED]

    @property
    def wants_spare_cpu(self) -> bool:
        """Whether ``rate_for`` depends on ``spare_cpu`` (the default rate of Python frames, not blocking)."""
        return not self.rate and not self.native and not self.blocking and self.sampler not in (INPROCESS, PERF)

    @property
    def effective_samples(self) -> int:
        return self.samples or DEFAULT_SAMPLES[self.native and self.sampler != PERF]

    @property
    def effective_runs(self) -> int:
        """``min_runs``, else PERF_RUNS with perf (a run costs it ~1.3 CPU-s: worker, perf record, perf inject and
        perf script; 5 runs keep the promised precision, PRECISION_SLACK), else DEFAULT_RUNS."""
        return self.min_runs or (PERF_RUNS if self.sampler == PERF else DEFAULT_RUNS)

    @property
    def share_precision(self) -> float | None:
        """The 95% half-width every frame's share should reach: PRECISION_SLACK x what ``samples``
        samples give a 50% share by sampling alone (+-2.2 points for 2,000: +-4.9 here); None: not adaptive."""
        return PRECISION_SLACK * Z95 * 0.5 / math.sqrt(self.effective_samples) if self.adaptive_rounds else None
