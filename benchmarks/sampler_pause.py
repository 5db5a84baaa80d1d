"""Figure: how long py-spy stops the profiled process per sample (the cost of blocking sampling).

profile_distortion.py measures the slowdown of json.dumps while profiled, by ratios of 1 s
windows; on this VM those windows differ by +-10-20% among themselves (its control, py-spy
attached at 1 Hz, has a 95% interval of +-9%), so a 1-2% cost cannot be seen there. This figure
measures the cause directly: a target process spins reading ``time.perf_counter()`` at the
bottom of a ``--depth`` deep Python stack (native sampling unwinds every frame) and adds up every
gap between two reads longer than ``--gap`` microseconds: the time it was not running. Windows
with py-spy attached alternate with windows without it (ABBA pairs, one target process, one
py-spy per profiled window, sampling already begun when the window starts); the machine's own
stops (another process, the hypervisor) appear in both and cancel in the difference.

Per setting: the stopped fraction added by sampling (mean of the per-pair differences, t
interval), the samples py-spy took per second, the stop per sample (the added stopped time over
the samples), and the slowdown it implies for the target, 1 / (1 - stopped fraction) - 1, i.e.
what the sampler costs on the measured CPU. Beside it, how much slower the target ran between
stops (reads per running second, geometric mean of the per-pair ratios): what a sampler that
never stops the target could still cost it through shared caches and memory. Excluding the stops
is also what makes this figure quieter than whole-window ratios (a hypervisor's stop is a gap
too). The loop touches little memory, so its running slowdown is a lower bound for code that
does (json.dumps: profile_distortion.py). Pinning follows perflab's profiling sessions
(perflab.profile.session.sampling_cpus): a nonblocking sampler on another CPU than the target,
a blocking one not pinned.

``--busy`` runs a second CPU-bound process (unpinned) throughout, as profile_distortion.py does.

    python benchmarks/sampler_pause.py [--pairs 10] [--window 1.0] [--depth 30] [--busy] [--only NAME...]
    python benchmarks/sampler_pause.py --quick          # smoke run: 2 pairs of 0.5 s windows, the default only

Writes benchmarks/results/sampler_pause.json (sampler_pause_busy.json with --busy).
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from scipy import special  # (not scipy.stats: ~0.6 s of CPU to import, for a t quantile)

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _cli
from _common import chosen, conditions, sampler_figure, second_cpu_bound_process

from perflab.profile.sampler import PySpyRecording, find_py_spy
from perflab.profile.session import sampling_cpus, with_spare_cpu_known
from perflab.profile.settings import DEFAULT_RATE, NATIVE, OWN_CPU, PY_SPY, SHARED, ProfileSettings

PERFLAB, SAME_CPU = "perflab", "same CPU"  # where the target and py-spy run (see measure)
DEFAULT = None  # the rate perflab chooses as the setting's run begins (perflab.profile.spare_cpu)
SETTINGS = [  # name, native, rate, nonblocking, placement
    (
        f"python, default (nonblocking, {DEFAULT_RATE[OWN_CPU]} Hz with a spare CPU, else {DEFAULT_RATE[SHARED]})",
        False,
        DEFAULT,
        True,
        PERFLAB,
    ),
    ("python, 1 kHz, nonblocking", False, 1000, True, PERFLAB),
    ("python, 200 Hz, nonblocking (the former default)", False, 200, True, PERFLAB),
    ("python, 200 Hz, blocking", False, 200, False, PERFLAB),
    ("python, 200 Hz, blocking, same CPU", False, 200, False, SAME_CPU),
    (f"native, default ({DEFAULT_RATE[NATIVE]} Hz)", True, DEFAULT_RATE[NATIVE], False, PERFLAB),
    ("native, 100 Hz (the former default)", True, 100, False, PERFLAB),
    ("native, 100 Hz, same CPU", True, 100, False, SAME_CPU),
    ("native, 1 Hz", True, 1, False, PERFLAB),
]

TARGET = """
import sys, time

def spin(window, gap):
    stopped, reads, start = 0.0, 0, time.perf_counter()
    prev, end = start, start + window
    while prev < end:
        now = time.perf_counter()
        if now - prev > gap:
            stopped += now - prev
        reads += 1
        prev = now
    return stopped, reads, prev - start

def deep(depth, window, gap):
    return deep(depth - 1, window, gap) if depth else spin(window, gap)

depth, gap = int(sys.argv[1]), float(sys.argv[2])
print("ready", flush=True)
for line in sys.stdin:
    print(*deep(depth, float(line), gap), flush=True)
"""


class Target:
    """The spinning process."""

    def __init__(
        self, depth: int, gap: float, cpu: int | None, python: str = sys.executable, env: dict[str, str] | None = None
    ):
        """``python``, ``env``: the interpreter and extra variables (perf_sampler.py: python3.13 -X perf_jit)."""
        self.process = subprocess.Popen(
            [python, "-c", TARGET, str(depth), str(gap)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, **env} if env else None,
            preexec_fn=None if cpu is None else lambda: os.sched_setaffinity(0, {cpu}),
        )
        assert self.process.stdout.readline().strip() == "ready"

    def window(self, seconds: float) -> tuple[float, float]:
        """(fraction of the window stopped, reads per second while running) over a window of at least
        ``seconds``: it ends at the first read past them, so a stop across its end lengthens it (on a
        loaded machine it can outlast ``seconds`` on its own)."""
        self.process.stdin.write(f"{seconds}\n")
        self.process.stdin.flush()
        stopped, reads, elapsed = (float(word) for word in self.process.stdout.readline().split())
        return stopped / elapsed, reads / (elapsed - stopped)

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait()


def measure(native: bool, rate: int, nonblocking: bool, placement: str, args: argparse.Namespace) -> dict:
    """PERFLAB: pinned as perflab's profiling sessions pin; SAME_CPU: both on the last CPU."""
    if placement == SAME_CPU:
        target_cpu = sampler_cpu = sorted(os.sched_getaffinity(0))[-1]
    else:
        target_cpu, sampler_cpu = sampling_cpus(nonblocking and not native)
    target = Target(args.depth, args.gap * 1e-6, target_cpu)

    def profiled() -> tuple[tuple[float, float], int]:
        recording = PySpyRecording(find_py_spy(), target.process.pid, rate, native, "cpu", nonblocking, cpu=sampler_cpu)
        recording.wait_until_sampling()
        window = target.window(args.window)
        stacks, _ = recording.stop()
        return window, sum(stacks.values())

    try:
        [measured] = abba_pairs(target, args.pairs, args.window, {"sampled": profiled}).values()
    finally:
        target.close()
    stopped, stopped_half = mean_and_half_width(measured.stopped_differences)
    running, running_half = mean_and_half_width(measured.speed_log_ratios)
    per_second = float(np.median(measured.samples)) / args.window  # samples over the window and py-spy's stop
    return {
        "stopped_fraction": stopped,
        "stopped_fraction_ci": [stopped - stopped_half, stopped + stopped_half],
        "running_slowdown": math.expm1(running),
        "running_slowdown_ci": [math.expm1(running - running_half), math.expm1(running + running_half)],
        "samples_per_second": per_second,
        "stop_per_sample_ms": 1000 * stopped / per_second if per_second else None,
        "stop_per_sample_ms_ci": [
            1000 * (stopped - stopped_half) / per_second,
            1000 * (stopped + stopped_half) / per_second,
        ]
        if per_second
        else None,
        "slowdown": 1 / (1 - stopped) - 1,
        "slowdown_ci": [1 / (1 - (stopped - stopped_half)) - 1, 1 / (1 - (stopped + stopped_half)) - 1],
        "pairs": len(measured.stopped_differences),
        "stopped_differences": measured.stopped_differences,
        "speed_log_ratios": measured.speed_log_ratios,
    }


@dataclass
class Pairs:
    """One setting's ABBA pairs: per pair, the stopped fraction the sampler added, the log ratio of
    running speeds (reads per running second, without / with) and of whole-window speeds (reads per
    second, stops included: the sampler's whole cost); the samples of each profiled window."""

    stopped_differences: list[float] = field(default_factory=list)
    speed_log_ratios: list[float] = field(default_factory=list)
    total_log_ratios: list[float] = field(default_factory=list)
    samples: list[int] = field(default_factory=list)


def abba_pairs(
    target: Target, pairs: int, seconds: float, settings: dict[str, Callable[[], tuple[tuple[float, float], int]]]
) -> dict[str, Pairs]:
    """ABBA pairs of windows of ``target`` with and without each setting's sampler (``settings``: name
    -> one window with it attached, and the samples it took), after a warm-up window; with several
    settings, a round makes one pair of each, in alternating order, so that drift reaches all alike."""
    results = {name: Pairs() for name in settings}
    target.window(seconds)  # warm-up, not counted
    for pair in range(pairs):
        forward = pair % 2 == 0
        for name in list(settings) if forward else list(settings)[::-1]:
            windows = {}
            for with_sampler in (True, False) if forward else (False, True):
                if with_sampler:
                    windows[True], taken = settings[name]()
                    results[name].samples.append(taken)
                else:
                    windows[False] = target.window(seconds)
            (stopped_on, running_on), (stopped_off, running_off) = windows[True], windows[False]
            results[name].stopped_differences.append(stopped_on - stopped_off)
            results[name].speed_log_ratios.append(math.log(running_off / running_on))
            results[name].total_log_ratios.append(
                math.log(running_off * (1 - stopped_off) / (running_on * (1 - stopped_on)))
            )
    return results


def mean_and_half_width(values: list[float]) -> tuple[float, float]:
    """The mean and the half-width of its 95% t interval."""
    return float(np.mean(values)), float(
        special.stdtrit(len(values) - 1, 0.975) * np.std(values, ddof=1) / math.sqrt(len(values))
    )


def main() -> None:
    arguments = _cli.parser(__doc__)
    _cli.add_windows(arguments, 10)
    arguments.add_argument("--depth", type=int, default=30, help="Python frames above the spinning loop")
    arguments.add_argument(
        "--gap", type=float, default=20.0, help="microseconds between two reads that count as a stop"
    )
    args = _cli.parse(arguments, pairs=2, window=0.5, only=["python, default"])
    with second_cpu_bound_process(args.busy):
        run(args, chosen(SETTINGS, args.only))


def run(args: argparse.Namespace, settings: list) -> None:
    figure = sampler_figure("sampler_pause", __doc__, args, depth=args.depth, gap_us=args.gap)
    for name, native, rate, nonblocking, placement in settings:
        load_before = os.getloadavg()
        if rate is DEFAULT:  # with the second process already running under --busy
            rate = with_spare_cpu_known(ProfileSettings()).rate_for(PY_SPY)
        result = measure(native, rate, nonblocking, placement, args)
        load = [round(x, 2) for x in (*load_before, *os.getloadavg())]
        figure["results"][name] = {
            "native": native,
            "rate": rate,
            "nonblocking": nonblocking,
            "placement": placement,
            "load": load,
            **result,
        }
        low, high = result["slowdown_ci"]
        per_sample = (
            f"{result['stop_per_sample_ms']:.3f} ms [{result['stop_per_sample_ms_ci'][0]:.3f}, "
            f"{result['stop_per_sample_ms_ci'][1]:.3f}] stopped per sample"
            if result["stop_per_sample_ms"] is not None
            else "no samples"
        )
        run_low, run_high = result["running_slowdown_ci"]
        print(
            f"{name} at {rate} Hz: stopped: slowdown {result['slowdown']:+6.2%} [95% CI {low:+.2%}, {high:+.2%}]; {per_sample}; "
            f"running slower by {result['running_slowdown']:+.2%} [{run_low:+.2%}, {run_high:+.2%}]; "
            f"{result['samples_per_second']:.0f} samples/s ({result['pairs']} ABBA pairs of {args.window:g} s; "
            f"load average {load[0]:.2f} -> {load[3]:.2f})",
            flush=True,
        )
    figure["conditions_end"] = conditions()
    _cli.written(_cli.write_figure("sampler_pause" + ("_busy" if args.busy else ""), figure))


if __name__ == "__main__":
    main()
