"""Every timed value of a real worker carries the machine-speed probe beside it, and the run
states the probe's spread (perflab.results.machine_speed)."""

from __future__ import annotations

from support.cli import QUICK, load_json, run_perflab

BENCHMARK = """
import perflab

bench = perflab.Benchmark("probe")


@bench.case
def small():
    return list(range(200))


@bench.contender
def summed(values):
    return sum(values)


@bench.contender
def looped(values):
    total = 0
    for value in values:
        total += value
    return total
"""


def test_every_value_of_a_real_worker_has_a_probe_and_the_run_states_their_spread(tmp_path):
    path = tmp_path / "bench_probe.py"
    path.write_text(BENCHMARK)
    out = tmp_path / "out.json"
    done = run_perflab("compare", path, "--no-fuzz", "--json", out, *QUICK)
    assert done.returncode == 0, done.stderr
    data = load_json(out)
    runs = [run for cell in data["cells"] for run in cell["runs"]]
    assert len(runs) >= 6
    for run in runs:
        assert len(run["probes"]) == len(run["values"]) and all(probe > 0 for probe in run["probes"])
    speed = data["metadata"]["machine_speed"]
    assert speed["processes"] == len(runs) and speed["probe_slow"] >= speed["probe_fast"] > 0
