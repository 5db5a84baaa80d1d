"""What the tiers of test_metrics_results.py share (split by tier from one file)."""

from perflab.results.model import RunResult

ONE_CELL_BENCH = """
import json
import perflab
bench = perflab.Benchmark("counted", compare="exact")

@bench.case()
def DOC():
    return {"numbers": list(range(40))}

@bench.contender
def dumps(doc):
    return json.dumps(doc)
"""


def _result(**fields) -> RunResult:
    return RunResult(
        **{
            "benchmark": "counted",
            "file": "/x/bench.py",
            "reference": "a",
            "settings": {},
            "metadata": {},
            "work": {},
            **fields,
        }
    )
