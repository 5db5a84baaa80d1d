"""Figure: how much the sampler slows down the operation it profiles (distortion).

One profile-mode worker runs json.dumps on pyperformance's NESTED object (the json_dumps built-in,
contender json_stdlib) in windows of ``--window`` seconds; each window reports the median time
per call. Windows alternate between profiled (py-spy attached for exactly that window) and
unprofiled, in ABBA order, in the same process and session, so the machine's drifts cancel in the
per-pair ratio. The slowdown is the geometric mean of profiled/unprofiled over ``--pairs`` pairs,
with a t interval over pairs.

Settings measured: perflab's defaults (Python frames at DEFAULT_RATE[OWN_CPU] Hz with py-spy
--nonblocking on another CPU; native frames at DEFAULT_RATE[NATIVE] Hz, which py-spy samples blocking), Python
frames at 200 Hz (the former default) and blocking, and both at 1 kHz
(the anchors measured on this machine: +6.8% Python-only and +25% native at 1 kHz), and a control:
py-spy attached at 1 Hz, which separates the cost of being attached from the cost per sample.
Targets: <= 1% (95% CI upper end < 2%) Python-only and <= 2% (upper end < 5%) with native frames
at the default settings, busy or quiet.

``--pin`` pins the worker to one CPU and py-spy to another where perflab's profiling sessions do
(perflab.profile.session.sampling_cpus: nonblocking Python frames); without it nothing is pinned. ``--busy`` runs a second
CPU-bound process (a busy loop, unpinned) for the whole measurement, as another user of a 2-CPU
machine would; the load average is recorded at the start and end of each setting.

    python benchmarks/profile_distortion.py [--pairs 12] [--window 1.0] [--pin] [--busy] [--only NAME...]
    python benchmarks/profile_distortion.py --quick     # smoke run: 2 pairs of 0.2 s windows, the default only

Writes benchmarks/results/profile_distortion.json.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path

import numpy as np
from scipy import special  # (not scipy.stats: ~0.6 s of CPU to import, for a t quantile)

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _cli
from _common import chosen, conditions, sampler_figure, second_cpu_bound_process

from perflab import builtins
from perflab.bench.protocol import profile_job
from perflab.measure.launcher import WorkerProcess
from perflab.profile.sampler import PySpyRecording, find_py_spy
from perflab.profile.session import sampling_cpus
from perflab.profile.settings import DEFAULT_RATE, NATIVE, OWN_CPU

CONFIGS = [  # name, native, rate, nonblocking
    (f"python, default with a spare CPU ({DEFAULT_RATE[OWN_CPU]} Hz, nonblocking)", False, DEFAULT_RATE[OWN_CPU], True),
    (f"native, default ({DEFAULT_RATE[NATIVE]} Hz)", True, DEFAULT_RATE[NATIVE], False),
    ("python, 200 Hz, nonblocking (the former default)", False, 200, True),
    ("python, 200 Hz, --blocking", False, 200, False),
    ("python, 1 kHz, --blocking", False, 1000, False),
    ("native, 1 kHz", True, 1000, False),
    ("control: python, 1 Hz", False, 1, False),  # attached but barely sampling: the cost of attaching
]


def _seconds(event: dict | None) -> float:
    """The seconds per call a profiling window measured (its "value")."""
    if event is None:
        raise SystemExit("profile_distortion: the worker stopped answering (see its error above)")
    return event["value"]


def measure(native: bool, rate: int, nonblocking: bool, pairs: int, window: float, pin: bool) -> dict:
    job = profile_job(
        str(builtins.path_of("json_dumps")), "json_stdlib", [], "NESTED", 0.005, window, inprocess=None, cpu=None
    )
    worker = WorkerProcess(job, timeout=60 + window)
    ready = worker.wait_for("ready")
    if ready is None:
        raise RuntimeError(worker.outcome.error)
    target_cpu, sampler_cpu = sampling_cpus(nonblocking and not native) if pin else (None, None)
    if target_cpu is not None:
        os.sched_setaffinity(ready["pid"], {target_cpu})
    log_ratios, samples = [], []
    try:
        worker.request_event("profile")  # warm-up window, not counted
        for pair in range(pairs):
            times = {}
            for profiled in (True, False) if pair % 2 == 0 else (False, True):
                if profiled:
                    recording = PySpyRecording(
                        find_py_spy(), ready["pid"], rate, native, "cpu", nonblocking, cpu=sampler_cpu
                    )
                    recording.wait_until_sampling()
                    times[True] = _seconds(worker.request_event("profile"))
                    stacks, _ = recording.stop()
                    samples.append(sum(stacks.values()))
                else:
                    times[False] = _seconds(worker.request_event("profile"))
            log_ratios.append(math.log(times[True] / times[False]))
    finally:
        worker.close()
    mean = float(np.mean(log_ratios))
    half = float(special.stdtrit(len(log_ratios) - 1, 0.975) * np.std(log_ratios, ddof=1) / math.sqrt(len(log_ratios)))
    return {
        "slowdown": math.exp(mean) - 1,
        "ci": [math.exp(mean - half) - 1, math.exp(mean + half) - 1],
        "pairs": len(log_ratios),
        "samples_per_window": float(np.median(samples)) if samples else 0.0,
        "log_ratios": log_ratios,
    }


def main() -> None:
    arguments = _cli.parser(__doc__)
    _cli.add_windows(arguments, 12)
    arguments.add_argument("--pin", action="store_true", help="worker on one CPU, py-spy on another (perflab's way)")
    args = _cli.parse(arguments, pairs=2, window=0.2, only=["python, default"])
    with second_cpu_bound_process(args.busy):
        run(args, chosen(CONFIGS, args.only))


def run(args: argparse.Namespace, configs: list) -> None:
    figure = sampler_figure("profile_distortion", __doc__, args, pinned=args.pin)
    print(
        f"{'pinned (worker and py-spy on different CPUs)' if args.pin else 'not pinned'}, "
        f"{'with' if args.busy else 'without'} a second CPU-bound process"
    )
    for name, native, rate, nonblocking in configs:
        load_before = os.getloadavg()
        result = measure(native, rate, nonblocking, args.pairs, args.window, args.pin)
        load = [round(x, 2) for x in load_before] + [round(x, 2) for x in os.getloadavg()]
        figure["results"][name] = {"native": native, "rate": rate, "nonblocking": nonblocking, "load": load, **result}
        print(
            f"{name:38s} slowdown {result['slowdown']:+6.1%} [95% CI {result['ci'][0]:+.1%}, {result['ci'][1]:+.1%}] "
            f"({result['pairs']} ABBA pairs of {args.window:g} s windows, {result['samples_per_window']:.0f} samples/window; "
            f"load average {load[0]:.2f} -> {load[3]:.2f})"
        )
    figure["conditions_end"] = conditions()
    name = "profile_distortion" + ("_pinned" if args.pin else "") + ("_busy" if args.busy else "")
    _cli.written(_cli.write_figure(name, figure))


if __name__ == "__main__":
    main()
