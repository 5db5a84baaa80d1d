"""Figure: how much the sampler slows down the operation it profiles (distortion).

One profile-mode worker runs json.dumps on pyperformance's NESTED object (the json_dumps built-in,
contender json_stdlib) in windows of ``--window`` seconds; each window reports the median time
per call. Windows alternate between profiled (py-spy attached for exactly that window) and
unprofiled, in ABBA order, in the same process and session, so the machine's drifts cancel in the
per-pair ratio. The slowdown is the geometric mean of profiled/unprofiled over ``--pairs`` pairs,
with a t interval over pairs.

Settings measured: perflab's defaults (Python frames at DEFAULT_RATE[False] Hz with py-spy
--nonblocking; native frames at DEFAULT_RATE[True] Hz, which py-spy samples blocking), Python
frames blocking at the default rate, and both at 1 kHz
(the anchors measured on this machine: +6.8% Python-only and +25% native at 1 kHz), and a control:
py-spy attached at 1 Hz, which separates the cost of being attached from the cost per sample.
Targets: <= 2% Python-only and <= 5% with native frames at the default settings.

    python benchmarks/profile_distortion.py [--pairs 12] [--window 1.0]

Writes benchmarks/results/profile_distortion.json.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np
from scipy import stats as scipy_stats

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import conditions, machine, write_figure

from perflab import builtins
from perflab.measure.launcher import Worker
from perflab.profile.sampler import PySpyRecording, find_py_spy, py_spy_version
from perflab.profile.settings import DEFAULT_RATE

CONFIGS = [  # name, native, rate, nonblocking
    (f"python, default ({DEFAULT_RATE[False]} Hz, nonblocking)", False, DEFAULT_RATE[False], True),
    (f"native, default ({DEFAULT_RATE[True]} Hz)", True, DEFAULT_RATE[True], False),
    (f"python, {DEFAULT_RATE[False]} Hz, --blocking", False, DEFAULT_RATE[False], False),
    ("python, 1 kHz, nonblocking", False, 1000, True),
    ("python, 1 kHz, --blocking", False, 1000, False),
    ("native, 1 kHz", True, 1000, False),
    ("control: python, 1 Hz", False, 1, False),  # attached but barely sampling: the cost of attaching
]


def measure(native: bool, rate: int, nonblocking: bool, pairs: int, window: float) -> dict:
    job = {
        "mode": "profile",
        "file": str(builtins.path_of("json_dumps")),
        "case": "NESTED",
        "contender": "json_stdlib",
        "value_time": 0.005,
        "duration": window,
        "inprocess": None,
    }
    worker = Worker(job, timeout=60 + window)
    ready = worker.wait_for("ready")
    if ready is None:
        raise RuntimeError(worker.outcome.error)
    log_ratios, samples = [], []
    try:
        worker.request("profile")  # warm-up window, not counted
        for pair in range(pairs):
            times = {}
            for profiled in (True, False) if pair % 2 == 0 else (False, True):
                if profiled:
                    recording = PySpyRecording(find_py_spy(), ready["pid"], rate, native, "cpu", nonblocking)
                    recording.wait_until_sampling()
                    times[True] = worker.request("profile")
                    stacks, _ = recording.stop()
                    samples.append(sum(stacks.values()))
                else:
                    times[False] = worker.request("profile")
            log_ratios.append(math.log(times[True] / times[False]))
    finally:
        worker.close()
    mean = float(np.mean(log_ratios))
    half = float(
        scipy_stats.t.ppf(0.975, len(log_ratios) - 1) * np.std(log_ratios, ddof=1) / math.sqrt(len(log_ratios))
    )
    return {
        "slowdown": math.exp(mean) - 1,
        "ci": [math.exp(mean - half) - 1, math.exp(mean + half) - 1],
        "pairs": len(log_ratios),
        "samples_per_window": float(np.median(samples)) if samples else 0.0,
        "log_ratios": log_ratios,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=12)
    parser.add_argument("--window", type=float, default=1.0)
    args = parser.parse_args()
    figure = {
        "figure": "profile_distortion",
        "machine": machine(),
        "conditions_start": conditions(),
        "how": __doc__,
        "py_spy": py_spy_version(find_py_spy()),
        "window_s": args.window,
        "results": {},
    }
    for name, native, rate, nonblocking in CONFIGS:
        result = measure(native, rate, nonblocking, args.pairs, args.window)
        figure["results"][name] = {"native": native, "rate": rate, "nonblocking": nonblocking, **result}
        print(
            f"{name:38s} slowdown {result['slowdown']:+6.1%} [95% CI {result['ci'][0]:+.1%}, {result['ci'][1]:+.1%}] "
            f"({result['pairs']} ABBA pairs of {args.window:g} s windows, {result['samples_per_window']:.0f} samples/window)"
        )
    figure["conditions_end"] = conditions()
    print(f"written to {write_figure('profile_distortion', figure)}")


if __name__ == "__main__":
    main()
