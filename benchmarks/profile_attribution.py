"""Figure: attribution accuracy of perflab's profiles on a program whose time split is known.

The program: two functions, ``alpha`` and ``beta``, run the same loop body (identical bytecode,
so one unit of work costs the same in both) a given number of units; two callers call them in
different proportions:

    caller_a: alpha 3 units, beta 1 unit        caller_b: alpha 1 unit, beta 5 units

so by construction alpha holds 4/10 and beta 6/10 of the work, and in calling context
caller_a>alpha 3/10, caller_a>beta 1/10, caller_b>alpha 1/10, caller_b>beta 5/10. A unit is long
(tens of microseconds), so the callers' own time is negligible. (The script also checks the
construction: it times alpha and beta on one unit each, outside any profiler.)

For each sampler (py-spy at its default settings, at the former default rate of 200 Hz, py-spy
--blocking, the in-process fallback), ``--repeats`` profiles
at the default budget (2,000 samples) are taken with ``perflab profile`` and compared with the true
split: absolute error of each function's self share and of each calling context's share, and
whether the true share lies inside the reported 95% interval. Target: <= 2 percentage points.

    python benchmarks/profile_attribution.py [--repeats 3] [--samples 2000]
    python benchmarks/profile_attribution.py --quick    # smoke run: 1 profile of 300 samples, default sampler

Writes benchmarks/results/profile_attribution.json.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _cli
from _common import chosen, conditions, machine

from perflab.profile.calltree import build_tree
from perflab.profile.frames import parse_frame
from perflab.profile.model import Profile
from perflab.profile.shares import frame_shares

UNIT = 4000  # loop iterations per unit of work
# The known split, also the library of the whole-program figure (benchmarks/program_profile.py).
KNOWN_SPLIT = f"""\
UNIT = {UNIT}


def alpha(units):
    x = 0.0
    for i in range(units * UNIT):
        x = x * 0.5 + i
    return x


def beta(units):
    x = 0.0
    for i in range(units * UNIT):
        x = x * 0.5 + i
    return x


def caller_a():
    return alpha(3) + beta(1)


def caller_b():
    return alpha(1) + beta(5)
"""
PROGRAM = f"""\
import perflab

bench = perflab.Benchmark("known_split", description="alpha 40%, beta 60% by construction")
{KNOWN_SPLIT}

@bench.case
def ONE():
    return None


@bench.contender
def split(_):
    return caller_a() + caller_b()
"""
TRUE_SELF = {"alpha": 0.4, "beta": 0.6}
TRUE_CONTEXT = {
    ("caller_a", "alpha"): 0.3,
    ("caller_a", "beta"): 0.1,
    ("caller_b", "alpha"): 0.1,
    ("caller_b", "beta"): 0.5,
}


def check_construction(directory: Path) -> dict[str, float]:
    """Time per unit of beta over alpha: median of 201 interleaved pairs of one-unit calls (should be 1)."""
    code = (
        "import statistics, sys, time; sys.path.insert(0, sys.argv[1]); import bench\n"
        "def once(f):\n"
        "    t = time.perf_counter(); f(1); return time.perf_counter() - t\n"
        "ratios = [once(bench.beta) / once(bench.alpha) for _ in range(201)]\n"
        "print(statistics.median(ratios), statistics.median(once(bench.alpha) for _ in range(51)))\n"
    )
    output = subprocess.run(
        [sys.executable, "-c", code, str(directory)], capture_output=True, text=True, check=True
    ).stdout.split()
    return {"beta_over_alpha_per_unit": float(output[0]), "alpha_seconds_per_unit": float(output[1])}


SAMPLERS = {
    "py-spy (default: --nonblocking, 1 kHz)": ["--sampler", "py-spy"],
    "py-spy --nonblocking --rate 200 (the former default)": ["--sampler", "py-spy", "--rate", "200"],
    "py-spy --blocking": ["--sampler", "py-spy", "--blocking"],
    "inprocess": ["--sampler", "inprocess"],
}


def profile_once(bench: Path, out: Path, samples: int, options: list[str]) -> Profile:
    command = [
        sys.executable,
        "-m",
        "perflab",
        "profile",
        str(bench),
        "--samples",
        str(samples),
        *options,
        "--json",
        str(out),
    ]
    completed = subprocess.run(command, capture_output=True, text=True)
    if completed.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed: {completed.stderr.strip()[-400:]}")
    return Profile.load(out)


def errors_of(profile: Profile) -> dict:
    shares = {parse_frame(s.frame).name: s for s in frame_shares(profile.runs)}
    root = build_tree(profile.merged())
    result = {"samples": profile.samples, "runs": len(profile.runs), "functions": {}, "contexts": {}}
    for name, truth in TRUE_SELF.items():
        share = shares[name].self
        result["functions"][name] = {
            "true": truth,
            "measured": share.value,
            "ci": [share.low, share.high],
            "abs_error_pp": abs(share.value - truth) * 100,
            "covered": share.low <= truth <= share.high,
        }
    split = next(node for label, node in root.children.items() if parse_frame(label).name == "split")
    by_name = {parse_frame(label).name: node for label, node in split.children.items()}
    for (caller, callee), truth in TRUE_CONTEXT.items():
        node = by_name[caller].children
        # a context no sample landed in has a measured share of 0
        measured = next((n.total for label, n in node.items() if parse_frame(label).name == callee), 0) / root.total
        result["contexts"][f"{caller}>{callee}"] = {
            "true": truth,
            "measured": measured,
            "abs_error_pp": abs(measured - truth) * 100,
        }
    return result


def main() -> None:
    arguments = _cli.parser(__doc__)
    _cli.add_trials(arguments, 3, "profiles per sampler", flag="--repeats")
    arguments.add_argument("--samples", type=int, default=2000, help="samples per profile (default 2000)")
    arguments.add_argument("--only", nargs="+", metavar="NAME", help="samplers whose name starts with one of these")
    args = _cli.parse(arguments, repeats=1, samples=300, only=["py-spy (default"])
    started = conditions()
    figure = {
        "figure": "profile_attribution",
        "machine": machine(),
        "conditions_start": started,
        "how": __doc__,
        "true_self": TRUE_SELF,
        "true_context": {f"{a}>{b}": v for (a, b), v in TRUE_CONTEXT.items()},
        "samplers": {},
    }
    with tempfile.TemporaryDirectory() as directory:
        bench = Path(directory) / "bench.py"
        bench.write_text(PROGRAM)
        figure["construction_check"] = check_construction(Path(directory))
        print(
            f"construction check: beta/alpha time per unit {figure['construction_check']['beta_over_alpha_per_unit']:.3f} "
            f"(median of 201 interleaved pairs; 1 means the split is 40/60 as constructed)"
        )
        for sampler, options in chosen(list(SAMPLERS.items()), args.only):
            repeats = []
            for repeat in range(args.repeats):
                t = time.monotonic()
                profile = profile_once(bench, Path(directory) / f"{repeat}.json", args.samples, options)
                result = errors_of(profile)
                result["wall_s"] = round(time.monotonic() - t, 1)
                repeats.append(result)
                worst = max(
                    [f["abs_error_pp"] for f in result["functions"].values()]
                    + [c["abs_error_pp"] for c in result["contexts"].values()]
                )
                print(
                    f"{sampler} repeat {repeat + 1}: {result['samples']} samples in {result['runs']} runs, "
                    f"alpha {result['functions']['alpha']['measured']:.1%}, beta {result['functions']['beta']['measured']:.1%}, "
                    f"worst abs error {worst:.2f} pp ({result['wall_s']} s)"
                )
            errors = [f["abs_error_pp"] for r in repeats for f in r["functions"].values()]
            context_errors = [c["abs_error_pp"] for r in repeats for c in r["contexts"].values()]
            covered = [f["covered"] for r in repeats for f in r["functions"].values()]
            figure["samplers"][sampler] = {
                "repeats": repeats,
                "max_abs_error_pp_functions": max(errors),
                "mean_abs_error_pp_functions": sum(errors) / len(errors),
                "max_abs_error_pp_contexts": max(context_errors),
                "true_share_in_95ci": f"{sum(covered)}/{len(covered)}",
            }
            s = figure["samplers"][sampler]
            print(
                f"{sampler}: function shares max abs error {s['max_abs_error_pp_functions']:.2f} pp "
                f"(mean {s['mean_abs_error_pp_functions']:.2f}); calling contexts max {s['max_abs_error_pp_contexts']:.2f} pp; "
                f"true share inside the 95% CI {s['true_share_in_95ci']}"
            )
    figure["conditions_end"] = conditions()
    _cli.written(_cli.write_figure("profile_attribution", figure))


if __name__ == "__main__":
    main()
