"""The equivalence jobs: "check", "output", "seed" and "fuzz" (perflab.bench.protocol).

A contender is compared with the reference computed in the same worker, or with the reference's
output given pickled by a worker of another side (revision, interpreter). Standard library only.
"""

from __future__ import annotations

import base64
import pickle
from collections.abc import Callable

from perflab.bench.loading import load_benchmark
from perflab.bench.spec import Case, Contender
from perflab.bench.worker import integrity
from perflab.bench.worker.events import EventStream
from perflab.bench.worker.user_code import UserCodeError, build_input, call, fresh_input, load_case

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: see perflab.bench's docstring
if TYPE_CHECKING:
    from typing import Any

    from perflab.bench.protocol import CheckJob, FuzzEvent, FuzzJob, OutputJob, SeedJob


def run_check(job: CheckJob, events: EventStream) -> None:
    """Compare the contender with the reference: computed here from the same file, or, for a
    reference on another side (revision, interpreter), given pickled as "expected" (with the
    reference's input after its call as "expected_input").

    Every call gets its own copy of the case input, so no call sees what another did to it. Beyond
    the output: the contender's input must end as the reference's does (perflab.bench.worker.integrity), and
    two calls on equal inputs must not return shared objects unless the reference's do.
    """
    path = job["file"]
    benchmark, case, argument = load_case(path, job["case"])
    events.send({"event": "work", "work": case.work(argument)})
    # A pyperf script: nothing to compare, and the first timing worker calls the case anyway (an
    # exception there is the case's error); the script's set-up up to the case has run here.
    if not benchmark.comparator.compares:
        outcome = benchmark.comparator.check(None, None)
        events.send(
            {
                "event": "check",
                "equivalent": True,
                "difference": None,
                "note": outcome.note,
                "comparator": benchmark.comparator.name,
                "mutation": None,
                "shared": None,
                "output": None,
            }
        )
        return
    reference = benchmark.contenders[job["reference"]] if "reference" in job else None
    if reference is None:
        reference_output = pickle.loads(base64.b64decode(job["expected"]))
        given_input = job.get("expected_input")
        reference_input = pickle.loads(base64.b64decode(given_input)) if given_input else None
    else:
        reference_input = fresh_input(case, argument, path)
        reference_output = call(reference, reference_input, path, "reference")
    contender = benchmark.contenders[job["contender"]]
    contender_input = fresh_input(case, argument, path)
    output = call(contender, contender_input, path, "contender")
    outcome = benchmark.comparator.check(reference_output, output)
    sent = pickled(output) if job.get("send_output") else None  # before the sharing check changes it
    mutation = None
    if job.get("reference") == job["contender"]:  # the reference itself: it may not change what timing repeats
        if not benchmark.mutates_input:
            mutation = _reference_mutation(argument, contender_input)
    elif reference_input is not None:
        mutation = integrity.mutation(argument, reference_input, argument, contender_input, benchmark.mutates_input)
    # A second call on an equal input: it must give the same output again (state kept across
    # calls shows here) and, unless the reference's are shared too, not the same objects.
    second = call(contender, fresh_input(case, argument, path), path, "contender")
    again = benchmark.comparator.check(reference_output, second)
    if outcome.equivalent and not again.equivalent:
        outcome = again
        outcome.difference = f"a second call on an equal input: {again.difference}"
    shared = None if benchmark.shares_output else integrity.shared_output(output, second)
    if shared and _reference_shares(job, reference, case, argument):  # the API's own way: allowed
        shared = None
    events.send(
        {
            "event": "check",
            "equivalent": outcome.equivalent,
            "difference": outcome.difference,
            "note": outcome.note,
            "comparator": benchmark.comparator.name,
            "mutation": mutation,
            "shared": shared,
            "output": sent,
        }
    )


def _reference_shares(job: CheckJob, reference: Contender | None, case: Case, argument: Any) -> bool:
    """Whether the reference's outputs are shared too: told by the reference's side, or tried here."""
    if reference is None:
        return bool(job.get("reference_shares"))
    path = job["file"]
    return (
        integrity.shared_output(
            call(reference, fresh_input(case, argument, path), path, "reference"),
            call(reference, fresh_input(case, argument, path), path, "reference"),
        )
        is not None
    )


def _reference_mutation(before: Any, after: Any) -> str | None:
    change = integrity.changed(before, after)
    if change is None:
        return None
    return (
        f"the reference changes its input ({change}), so every timed call after the first would "
        "run on a changed input; declare Benchmark(..., mutates_input=True) to time each call on a fresh copy"
    )


def run_output(job: OutputJob, events: EventStream) -> None:
    """Send the contender's output on the case, pickled, for a check on another side."""
    path = job["file"]
    benchmark, case, argument = load_case(path, job["case"])
    events.send({"event": "work", "work": case.work(argument)})
    contender = benchmark.contenders[job["contender"]]
    if not benchmark.comparator.compares:  # nothing to compare on the other side (run_check's pyperf script)
        events.send({"event": "output", "pickled": pickled(None) or "", "input": None, "shares": False})
        return
    output = call(contender, argument, path, "reference")
    sent = pickled(output)
    if sent is None:
        raise UserCodeError(
            "reference",
            job["contender"],
            TypeError("its output cannot be pickled for comparison with another side"),
            path,
        )
    again = call(contender, fresh_input(case, argument, path), path, "reference")
    events.send(
        {
            "event": "output",
            "pickled": sent,
            "input": pickled(argument),
            "shares": bool(integrity.shared_output(output, again)),
        }
    )


def run_seed(job: SeedJob, events: EventStream) -> None:
    """Under this worker's PYTHONHASHSEED, the contender's output on each case compared with its
    output from another process (``expected``: case -> pickled, from the check jobs): output that
    depends on the hash seed (set or dict order leaking out) differs here."""
    path = job["file"]
    benchmark = load_benchmark(path)
    contender = benchmark.contenders[job["contender"]]
    differences = {}
    for case_name, expected in job["expected"].items():
        output = call(contender, build_input(benchmark.cases[case_name], path), path, "contender")
        outcome = benchmark.comparator.check(pickle.loads(base64.b64decode(expected)), output)
        if not outcome.equivalent:
            differences[case_name] = outcome.difference
    events.send({"event": "seed", "differences": differences})


def run_fuzz(job: FuzzJob, events: EventStream) -> None:
    """Generated inputs and stateful call patterns beyond the declared cases (perflab.bench.worker.fuzz)."""
    from perflab.bench.worker import fuzz  # here: the other jobs of this module need none of its imports

    path = job["file"]
    benchmark = load_benchmark(path)
    declared = {name: build_input(case, path) for name, case in benchmark.cases.items()}
    reference = benchmark.contenders[job["reference"]]
    contender = benchmark.contenders[job["contender"]]
    try:  # the reference first: a contender's setup may change process-wide state
        reference_function = reference.build()
    except Exception as error:
        raise UserCodeError("reference", reference.name, error, path) from error

    def build_contender() -> Callable[[Any], Any]:
        try:
            return contender.build()
        except Exception as error:
            raise UserCodeError("contender", contender.name, error, path) from error

    examples = job.get("examples", 200) if benchmark.fuzz else 0
    report = fuzz.run(
        benchmark.comparator,
        reference_function,
        build_contender,
        contender.setup,
        declared,
        benchmark.input_strategy,
        examples,
        job.get("seed", 0),
        path,
        job.get("patterns"),
        benchmark.mutates_input,
        benchmark.errors,
        job.get("generate_seconds"),
    )
    if not benchmark.fuzz:
        report.notes.insert(0, "generated inputs skipped: the benchmark declares fuzz=False")
    from typing import cast  # the fuzz job imports Hypothesis, and with it typing, anyway

    events.send(cast("FuzzEvent", {"event": "fuzz", **report.to_event()}))


def pickled(value: Any) -> str | None:
    """``value`` pickled and base64-encoded for the wire; None when it cannot be pickled."""
    try:  # protocol 4 is read by every Python perflab supports, whichever side wrote it
        return base64.b64encode(pickle.dumps(value, protocol=4)).decode()
    except Exception:
        return None
