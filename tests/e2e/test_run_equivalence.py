"""``perflab run`` fuzzes as ``compare`` does: "equivalent" means the same in both verbs."""

from support.cli import QUICK, load_json, run_perflab

# Declared case of sorted small ints: set iteration order happens to be sorted there.
UNIQUE_BENCH = """
import perflab

bench = perflab.Benchmark("unique")

@bench.case
def SMALL():
    return list(range(50)) * 2

@bench.contender
def sorted_unique(xs):
    return sorted(set(xs))

@bench.contender
def set_order(xs):
    return list(set(xs))
"""


def test_run_fuzzes_and_flags_what_only_generated_inputs_expose(bench_file, tmp_path):
    out = tmp_path / "r.json"
    result = run_perflab("run", bench_file(UNIQUE_BENCH), *QUICK, "--json", out)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "NOT EQUIVALENT (fuzzing)" in result.stdout
    data = load_json(out)
    assert [e["status"] for e in data["equivalence"] if e["case"] == "fuzzing"] == ["not equivalent"]
    assert not any(c["valid"] for c in data["comparisons"])
