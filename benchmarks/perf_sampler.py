"""Figure: perf as the sampler of a benchmark's operation (``--sampler perf``), beside py-spy --native.

Three figures in one run, all under pyenv's CPython 3.13 (``-X perf_jit``), or 3.12 with
``--python-version 3.12`` (``-X perf`` with the unwinding information perflab's worker writes; see
perflab.profile.perf_sampler and perf_trampolines):

1. Distortion: sampler_pause.py's method (a process spinning at the bottom of a 30-frame Python
   stack adds up every gap between two clock reads longer than 5 us: the time it was not
   running), in ABBA pairs of windows with and without ``perf record -F RATE`` attached, pinned
   as perflab pins (target and perf on different CPUs), for two settings interleaved pair by
   pair: perflab's (``--call-graph dwarf,8192``, its first stack dump) and
   perf with no call graph (the sampling interrupt alone: the floor under any stack dump). Per
   setting: the slowdown 1 / (1 - stopped fraction) - 1 and the stop per sample, with 95% t
   intervals over pairs; the slowdown over whole windows (reads per second, stops included: the
   sampler's whole cost); how much slower the target ran between stops. Target: <= 1% at >= 1 kHz.
2. Attribution: profile_attribution.py's known split (alpha 40%, beta 60% by construction)
   profiled with ``perflab profile --sampler perf``: absolute error of each function's total share
   (with native frames, C code its bytecode runs is below it, not in its self share).
   Target: <= 2 percentage points.
3. Time to a native profile: ``perflab profile json_dumps --case NESTED --native --samples N`` with
   perf (auto picks it under 3.13) and with ``--sampler py-spy`` (10 Hz: a native sample stops the
   target), wall time of the whole command, and where it went: before the first run (interpreter
   start, the machine's facts, perf's probe), and summed over the runs (the profile's ``run_info``):
   waiting for a worker to be ready (with perf, each later worker starts while the run before is
   read), sampling (until the worker exited and perf wrote its recording), reading (perf inject,
   perf script, trimming); beside it, the widest 95% half-width of a share over the runs (fewer,
   longer runs: wider), and the stack dumps the runs took with the samples whose stack did not
   fit (truncated). Target: 2,000 samples in <= 5 s with perf.

    python benchmarks/perf_sampler.py [--pairs 10] [--window 1.0] [--rate 1000] [--repeats 3] [--samples 2000] [--runs N]
    python benchmarks/perf_sampler.py --python-version 3.12   # the same figures under 3.12: results/perf_sampler_3.12.json
    python benchmarks/perf_sampler.py --runs 4   # fewer, longer runs: the time to 2,000 samples, and the intervals they give
    python benchmarks/perf_sampler.py --quick    # smoke run: 2 pairs of 0.5 s, profiles of 2 runs: 100 samples, 20 with py-spy

A smoke run costs 16-21 CPU-seconds (quiet to loaded 2-core VM): perf's DWARF stack unwinding of every sample (perf script) and
three perflab profiles under python3.13; shorter windows (0.2 s) left a window without a sample.

Writes benchmarks/results/perf_sampler.json.
"""

from __future__ import annotations

import argparse
import math
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import _cli
from _common import conditions, machine
from profile_attribution import PROGRAM, TRUE_SELF, profile_once
from sampler_pause import Pairs, Target, abba_pairs, mean_and_half_width
from support.external import other_python

from perflab.profile.frames import parse_frame
from perflab.profile.model import Profile
from perflab.profile.native_perf import RECORD_EXIT, check_perf
from perflab.profile.perf_sampler import STACK_DUMP, call_graph
from perflab.profile.perf_trampolines import Trampoline, interpreter_trampoline
from perflab.profile.session import sampling_cpus
from perflab.profile.shares import frame_shares, widest_half_width

DEPTH = 30
# A read-to-read gap longer than this is a stop (--gap). Each perf sample stops the target ~18-22 us here (the
# sampling interrupt in this VM, with or without a stack to copy): at sampler_pause.py's 20 us the
# threshold cut through those stops, and the figure swung with the machine (1.2-3.0% in an hour).
GAP_US = 5.0
# perflab's setting, and perf sampling without a call graph: the cost of the sampling interrupt alone,
# which no choice of stack dump or buffer can go below.
SETTINGS = {"perflab": STACK_DUMP, "no call graph": None}


class AttachedPerf:
    """``perf record -p PID`` for one window, sampling once it answers on its control pipe; ``stack_dump``
    None: no call graph (the sampling interrupt alone)."""

    def __init__(self, pid: int, rate: int, cpu: int | None, scratch: str, stack_dump: int | None):
        control, ack = os.path.join(scratch, "control"), os.path.join(scratch, "ack")
        for fifo in (control, ack):
            if not os.path.exists(fifo):
                os.mkfifo(fifo)
        self._control, self._ack = os.open(control, os.O_RDWR), os.open(ack, os.O_RDWR)
        self.data = os.path.join(scratch, "perf.data")
        command = [check_perf(), "record", "-q", "-e", "cpu-clock", "-F", str(rate)]
        command += ["--call-graph", call_graph(stack_dump)] if stack_dump else []
        command += ["-N", *RECORD_EXIT, "--control", f"fifo:{control},{ack}", "-p", str(pid)]
        command += ["-o", self.data]
        self.process = subprocess.Popen(
            command,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=None if cpu is None else lambda: os.sched_setaffinity(0, {cpu}),
        )
        os.write(self._control, b"ping\n")  # answered once perf has attached and sampling is on
        assert b"ack" in os.read(self._ack, 64)

    def stop(self) -> int:
        """Stop perf; the samples it took."""
        self.process.send_signal(signal.SIGINT)
        self.process.wait()
        os.close(self._control)
        os.close(self._ack)
        listed = subprocess.run(
            [check_perf(), "script", "-i", self.data, "-F", "tid", "-G"], capture_output=True, text=True
        )
        return sum(1 for line in listed.stdout.splitlines() if line.strip())


def distortion(python: str, rate: int, args: argparse.Namespace) -> dict:
    """Each setting's cost to the target, from ABBA pairs interleaved across settings."""
    target_cpu, perf_cpu = sampling_cpus(True)
    trampoline = interpreter_trampoline(python)
    assert isinstance(trampoline, Trampoline), trampoline  # main() checked it
    target = Target(DEPTH, args.gap * 1e-6, target_cpu, python, trampoline.env)
    try:
        with tempfile.TemporaryDirectory(prefix="perflab-perf-figure-") as scratch:

            def profiled(stack_dump: int | None) -> Callable[[], tuple[tuple[float, float], int]]:
                def window() -> tuple[tuple[float, float], int]:
                    perf = AttachedPerf(target.process.pid, rate, perf_cpu, scratch, stack_dump)
                    return target.window(args.window), perf.stop()

                return window

            measured = abba_pairs(
                target, args.pairs, args.window, {name: profiled(dump) for name, dump in SETTINGS.items()}
            )
    finally:
        target.close()
        Path(f"/tmp/jit-{target.process.pid}.dump").unlink(missing_ok=True)  # the target's, by -X perf_jit
    return {name: cost(pairs, rate, args.window) for name, pairs in measured.items()}


def cost(pairs: Pairs, rate: int, window: float) -> dict:
    """A setting's cost: the stopped fraction's slowdown, the stop per sample, the slowdown between
    stops and over whole windows (stops included), each with its 95% t interval over pairs."""
    stopped, half = mean_and_half_width(pairs.stopped_differences)
    per_second = sorted(pairs.samples)[len(pairs.samples) // 2] / window

    def slowdown(log_ratios: list[float]) -> list[float]:
        mean, spread = mean_and_half_width(log_ratios)
        return [math.expm1(mean), math.expm1(mean - spread), math.expm1(mean + spread)]

    return {
        "rate": rate,
        "slowdown": 1 / (1 - stopped) - 1,
        "slowdown_ci": [1 / (1 - (stopped - half)) - 1, 1 / (1 - (stopped + half)) - 1],
        "stop_per_sample_us": [1e6 * x / per_second for x in (stopped, stopped - half, stopped + half)],
        "running_slowdown": slowdown(pairs.speed_log_ratios),
        "whole_window_slowdown": slowdown(pairs.total_log_ratios),
        "samples_per_second": per_second,
        "pairs": len(pairs.stopped_differences),
        "stopped_differences": pairs.stopped_differences,
    }


def attribution(python: str, args: argparse.Namespace) -> list[dict]:
    """Each profile's error on alpha's and beta's total share: with native frames, the C code a function's
    bytecode runs (the loader's __tls_get_addr, for libpython's thread state) is below it, not in its self share."""
    repeats = []
    with tempfile.TemporaryDirectory() as directory:
        bench = Path(directory) / "bench.py"
        bench.write_text(PROGRAM)
        for repeat in range(args.repeats):
            profile = profile_once(
                bench,
                Path(directory) / f"{repeat}.json",
                args.samples,
                ["--sampler", "perf", "--python", python, *(["--runs", str(args.runs)] if args.runs else [])],
            )
            shares = {parse_frame(share.frame).name: share.total for share in frame_shares(profile.runs)}
            repeats.append(
                {
                    name: {
                        "true": truth,
                        "measured": shares[name].value,
                        "ci": [shares[name].low, shares[name].high],
                        "abs_error_pp": abs(shares[name].value - truth) * 100,
                    }
                    for name, truth in TRUE_SELF.items()
                }
            )
    return repeats


def time_to_profile(python: str, samples: int, options: list[str]) -> dict:
    with tempfile.TemporaryDirectory() as directory:
        out = Path(directory) / "profile.json"
        command = [sys.executable, "-m", "perflab", "profile", "json_dumps", "--case", "NESTED", "--native"]
        command += ["--python", python, "--samples", str(samples), *options, "--json", str(out)]
        started = time.monotonic()
        done = subprocess.run(command, capture_output=True, text=True)
        wall = time.monotonic() - started
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} failed: {done.stderr.strip()[-400:]}")
        profile = Profile.load(out)
    runs = profile.metadata["run_info"]
    summed = {stage: sum(info["wall"][stage] for info in runs) for stage in ("start", "sampling", "reading")}
    return {
        "command": " ".join(command[1:-2]),
        "wall_s": round(wall, 1),
        "samples": profile.samples,
        "sampler": profile.metadata["sampler_version"],
        "rate": profile.metadata["rate"],
        "runs": len(runs),
        # how precise its shares are: the widest 95% half-width over runs, in percentage points
        "widest_half_width_pp": round(widest_half_width(profile.runs) * 100, 2),
        # perf's bytes of stack a sample, and the samples whose stack did not fit in them
        "stack_dumps": sorted({info["stack_dump"] for info in runs if "stack_dump" in info}),
        "truncated": sum(info.get("truncated", 0) for info in runs),
        "profiling_s": round(profile.metadata["elapsed"], 1),
        "stages_s": {
            "before the runs": round(wall - profile.metadata["elapsed"], 2),
            **{stage: round(seconds, 2) for stage, seconds in summed.items()},
            # runs left out (no sample) and what the session does between runs
            "other": round(profile.metadata["elapsed"] - sum(summed.values()), 2),
        },
    }


def stages(timed: dict) -> str:
    return ", ".join(f"{stage} {seconds:.1f} s" for stage, seconds in timed["stages_s"].items())


def main() -> None:
    arguments = _cli.parser(__doc__)
    _cli.add_windows(arguments, 10)
    arguments.add_argument("--rate", type=int, default=1000, help="perf's samples per second (default 1000)")
    arguments.add_argument(
        "--gap",
        type=float,
        default=GAP_US,
        help=f"microseconds between two reads that count as a stop (default {GAP_US:g})",
    )
    _cli.add_trials(arguments, 3, "profiles of the known split", flag="--repeats")
    arguments.add_argument("--samples", type=int, default=2000, help="samples per profile (default 2000)")
    arguments.add_argument(
        "--py-spy-samples", type=int, default=2000, help="samples of py-spy's native profile (default 2000: ~200 s)"
    )
    arguments.add_argument("--runs", type=int, help="profiling runs per profile (default: perflab's, 5 with perf)")
    arguments.add_argument(
        "--python-version",
        choices=["3.12", "3.13"],
        default="3.13",
        help="pyenv's interpreter to profile (default 3.13)",
    )
    args = _cli.parse(arguments, pairs=2, window=0.5, repeats=1, samples=100, py_spy_samples=20, runs=2)
    python = other_python(args.python_version)
    if python is None:
        sys.exit(f"perf_sampler.py --python-version {args.python_version}: pyenv has no python{args.python_version}")
    trampoline = interpreter_trampoline(python)
    if not isinstance(trampoline, Trampoline):
        sys.exit(f"perf_sampler.py: {trampoline}")
    figure = {
        "figure": "perf_sampler",
        "machine": machine(),
        "conditions_start": conditions(),
        "how": __doc__,
        "python": python,
        "gap_us": args.gap,
    }
    load = os.getloadavg()[0]
    results = figure["distortion"] = distortion(python, args.rate, args)
    for name, result in results.items():
        low, high = result["slowdown_ci"]
        per_sample, whole, running = (
            result["stop_per_sample_us"],
            result["whole_window_slowdown"],
            result["running_slowdown"],
        )
        print(
            f"distortion, perf at {args.rate} Hz, {name}: stopped {result['slowdown']:+.2%} [95% CI {low:+.2%}, "
            f"{high:+.2%}] ({per_sample[0]:.1f} us [{per_sample[1]:.1f}, {per_sample[2]:.1f}] a sample); whole "
            f"windows {whole[0]:+.2%} [{whole[1]:+.2%}, {whole[2]:+.2%}]; between stops {running[0]:+.2%}; "
            f"{result['samples_per_second']:.0f} samples/s ({result['pairs']} ABBA pairs of {args.window:g} s, "
            f"interleaved; gaps over {args.gap:g} us; load average {load:.2f} -> {os.getloadavg()[0]:.2f})",
            flush=True,
        )
    repeats = figure["attribution"] = attribution(python, args)
    worst = max(f["abs_error_pp"] for r in repeats for f in r.values())
    shares = ", ".join(f"alpha {r['alpha']['measured']:.1%} beta {r['beta']['measured']:.1%}" for r in repeats)
    print(f"attribution, --sampler perf: total shares max abs error {worst:.2f} pp ({shares}; true 40% / 60%)")
    runs = ["--runs", str(args.runs)] if args.runs else []
    perf = figure["time_perf"] = time_to_profile(python, args.samples, runs)
    spy = figure["time_py_spy"] = time_to_profile(python, args.py_spy_samples, [*runs, "--sampler", "py-spy"])
    print(
        f"time to {perf['samples']} native samples: perf {perf['wall_s']} s in {perf['runs']} runs at {perf['rate']} Hz "
        f"({stages(perf)}; shares to +-{perf['widest_half_width_pp']} pp at worst; stack dump {perf['stack_dumps']} "
        f"bytes, {perf['truncated']} samples truncated); py-spy --native: {spy['samples']} samples in {spy['wall_s']} s in {spy['runs']} runs at "
        f"{spy['rate']} Hz ({stages(spy)}) (load average {os.getloadavg()[0]:.2f})"
    )
    figure["conditions_end"] = conditions()
    name = "perf_sampler" if args.python_version == "3.13" else f"perf_sampler_{args.python_version}"
    _cli.written(_cli.write_figure(name, figure))


if __name__ == "__main__":
    main()
