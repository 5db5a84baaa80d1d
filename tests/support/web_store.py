"""A small real results store for the web view's tests: two benchmarks' histories with a step, hostile
names everywhere a user string lands, stored profiles on both sides of the step, instruction counts
and bytes allocated per call (memray's figures, doubled at the step), and a second machine."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np

from perflab.analysis import estimates
from perflab.profile.model import Profile
from perflab.results.model import Cell, Equivalence, ProcessRun
from perflab.results.store import Store
from support.store_results import synthetic_result

SCRIPT = "</script><script>window.pwned=1</script>"
IMG = "<img src=x onerror=window.pwned=1>"
EVIL_CASE = f"E{SCRIPT}"
EVIL_CONTENDER = f"c{IMG}"
EVIL_SUBJECT = f"speed up {IMG} & {SCRIPT}"
RUNS = 12
STEP_AT = 7  # runs from this index on are 30% slower
OTHER_MACHINE = {"cpu_model": f"Other CPU {IMG}", "cpu_count": 64, "os": "Linux", "kernel": "6.1"}


def _cell(case: str, contender: str, level: float, rng) -> Cell:
    cell = Cell(case, contender)
    for index in range(6):
        process = level * np.exp(rng.normal(0, 0.01))
        cell.runs.append(ProcessRun(index + 1, 100, [process], list(process * np.exp(rng.normal(0, 0.01, 10)))))
    cell.estimates = estimates.estimate_cell(cell.process_values())
    return cell


def profile_of(slow: bool) -> Profile:
    stacks = Counter(
        {
            (f"parse (<project>/{IMG}.py:3)", f"{SCRIPT} (<project>/bench.py:9)"): 300 if slow else 100,
            ("parse (<project>/bench.py:3)", "tokenize (<project>/bench.py:20)"): 200,
        }
    )
    per_call = 1.3e-5 if slow else 1e-5
    return Profile(
        [stacks, stacks.copy()],
        {
            "case": "SMALL",
            "contender": "base",
            "sampler": "py-spy",
            "mode": "wall",
            "rate": 1000,
            "python": {"version": "3.11.7"},
            "run_info": [{"time_per_call": per_call}] * 2,
        },
    )


def build_store(path: Path) -> dict[str, int]:
    """The store; returns the ids of the runs around the step."""
    ids = []
    with Store.open(path) as store:
        for i in range(RUNS):
            rng = np.random.default_rng(i)
            level = 1e-5 * (1.3 if i >= STEP_AT else 1.0)
            result = synthetic_result(
                benchmark="parse",
                time=level,
                seed=i,
                cases=("SMALL", EVIL_CASE),
                commit=f"{i:02d}" + "ab" * 19,
                noise=0.01,
            )
            result.metadata["git"]["subject"] = EVIL_SUBJECT if i == STEP_AT else f"commit number {i}"
            for case in ("SMALL", EVIL_CASE):
                result.cells.append(_cell(case, EVIL_CONTENDER, level / 2, rng))
                result.equivalence.append(Equivalence(case, EVIL_CONTENDER, "equivalent"))
            allocated = 4096.0 * (2 if i >= STEP_AT else 1)  # the step doubles the bytes allocated per call
            result.metrics = {
                "instructions": [
                    {"case": "SMALL", "contender": "base", "loops": 10, "per_call": [1000.0 + 300 * (i >= STEP_AT)] * 3}
                ],
                "memory": [
                    {
                        "case": "SMALL",
                        "contender": "base",
                        "loops": 10,
                        "allocated_per_call": [allocated, allocated + 8, allocated + 16],
                        "peak_allocated": [allocated + 56] * 3,
                        "allocation_loops": 100,
                    }
                ],
            }
            ids.append(store.save(result))
        store.save_profile(ids[STEP_AT - 1], "SMALL", "base", profile_of(slow=False))
        store.save_profile(ids[STEP_AT], "SMALL", "base", profile_of(slow=True))
        for i in range(3):  # the same benchmark on another machine: another series
            store.save(
                synthetic_result(benchmark="parse", seed=100 + i, commit=f"{i:02d}" + "cd" * 19, machine=OTHER_MACHINE)
            )
    return {"before": ids[STEP_AT - 1], "after": ids[STEP_AT], "first": ids[0], "last": ids[-1]}
