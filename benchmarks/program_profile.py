"""Figures: whole-program profiling (perflab profile -- python app.py) and perflab isolate.

The program: known_lib.alpha and known_lib.beta run the same loop body (identical bytecode) a given
number of units, called as caller_a: alpha 3, beta 1 and caller_b: alpha 1, beta 5, ``--calls``
times each; so by construction alpha holds 40% and beta 60% of the work. The program prints its
own wall time (perf_counter around its main loop), which is what the overhead figures compare.

1. Profiling overhead: the program's own wall time run plainly and under ``perflab profile`` at the
   default rate (py-spy --nonblocking, 200 Hz), alternately, ``--repeats`` pairs; the ratio of
   medians with a 95% interval (percentile bootstrap over pairs).
2. Recording overhead of ``perflab isolate --function known_lib:alpha`` the same way (the hook:
   sys.monitoring on 3.12+, a swapped code object before; plus the copies of the recorded calls).
3. Attribution: alpha's and beta's self shares in each whole-program profile against 40/60.

    python benchmarks/program_profile.py [--repeats 5] [--calls 300]
    python benchmarks/program_profile.py --quick     # smoke run: 2 repeats of 30 calls

Writes benchmarks/results/program_profile.json.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _cli
from _common import conditions, machine
from profile_attribution import KNOWN_SPLIT, TRUE_SELF

from perflab.profile.frames import parse_frame
from perflab.profile.model import Profile
from perflab.profile.shares import frame_shares

PROGRAM = """
import sys, time
import known_lib

started = time.perf_counter()
for _ in range(int(sys.argv[1])):
    known_lib.caller_a()
    known_lib.caller_b()
print("ELAPSED", time.perf_counter() - started)
"""


def own_seconds(output: str) -> float:
    return float(next(line.split()[1] for line in output.splitlines() if line.startswith("ELAPSED")))


def run(command: list[str], cwd: Path) -> subprocess.CompletedProcess:
    completed = subprocess.run(command, capture_output=True, text=True, cwd=cwd)
    if completed.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed: {completed.stderr.strip()[-400:]}")
    return completed


def ratio_of_medians(plain: list[float], treated: list[float], seed: int = 1) -> tuple[float, float, float]:
    """Median(treated) / median(plain) with a 95% percentile-bootstrap interval over the pairs."""
    a, b = np.array(plain), np.array(treated)
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(a), size=(5000, len(a)))
    boot = np.median(b[picks], axis=1) / np.median(a[picks], axis=1)
    return float(np.median(b) / np.median(a)), float(np.quantile(boot, 0.025)), float(np.quantile(boot, 0.975))


def main() -> None:
    arguments = _cli.parser(__doc__)
    _cli.add_trials(arguments, 5, "plain / profiled / isolated runs of the program", flag="--repeats")
    arguments.add_argument("--calls", type=int, default=300, help="calls the program makes (default 300)")
    args = _cli.parse(arguments, repeats=2, calls=30)
    figure = {"figure": "program_profile", "machine": machine(), "conditions_start": conditions(), "how": __doc__}
    perflab = [sys.executable, "-m", "perflab"]
    with tempfile.TemporaryDirectory() as directory:
        here = Path(directory)
        (here / "known_lib.py").write_text(KNOWN_SPLIT)
        (here / "app.py").write_text(PROGRAM)
        program = [sys.executable, "app.py", str(args.calls)]
        plain, profiled, recorded, attribution = [], [], [], []
        for repeat in range(args.repeats):
            plain.append(own_seconds(run(program, here).stdout))
            out = here / f"{repeat}.json"
            profiled.append(own_seconds(run([*perflab, "profile", "--json", str(out), "--", *program], here).stdout))
            counts = {parse_frame(s.frame).name: s.self_samples for s in frame_shares(Profile.load(out).runs)}
            work = counts.get("alpha", 0) + counts.get("beta", 0)
            shares = {name: counts.get(name, 0) / work for name in TRUE_SELF} if work else {}
            # binomial 95% half-width of alpha's share among the work samples: the sampling error alone
            shares["half_width"] = 1.96 * (TRUE_SELF["alpha"] * TRUE_SELF["beta"] / work) ** 0.5 if work else None
            shares["samples"] = work
            attribution.append(shares)
            bench = here / f"bench_{repeat}.py"
            isolate = [*perflab, "isolate", "--function", "known_lib:alpha", "--output", str(bench), "--", *program]
            recorded.append(own_seconds(run(isolate, here).stdout))
            print(
                f"repeat {repeat + 1}: plain {plain[-1]:.3f} s, profiled {profiled[-1]:.3f} s, "
                f"isolate-recorded {recorded[-1]:.3f} s; alpha {attribution[-1].get('alpha', 0):.1%} "
                f"± {attribution[-1].get('half_width') or 0:.1%} (sampling alone) of {attribution[-1].get('samples')} "
                "alpha+beta samples (truth 40%)"
            )
    for name, treated in (("profiling", profiled), ("isolate_recording", recorded)):
        ratio, low, high = ratio_of_medians(plain, treated)
        figure[name] = {"ratio_of_medians": ratio, "ci95": [low, high], "plain_s": plain, "treated_s": treated}
        print(f"{name} overhead: program wall time x{ratio:.3f} [95% CI {low:.3f}-{high:.3f}] over {len(plain)} pairs")
    errors = [abs(a[name] - truth) * 100 for a in attribution for name, truth in TRUE_SELF.items() if a.get("samples")]
    figure["attribution"] = {
        "true": TRUE_SELF,
        "measured": attribution,
        "worst_abs_error_pp": max(errors, default=None),
    }
    print(
        f"attribution (self shares within alpha+beta vs 40/60): worst abs error {max(errors, default=float('nan')):.2f} pp"
    )
    figure["conditions_end"] = conditions()
    path = _cli.write_figure("program_profile", figure)
    print(json.dumps(figure["conditions_end"]))
    _cli.written(path)


if __name__ == "__main__":
    main()
