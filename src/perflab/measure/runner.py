"""The adaptive runner: equivalence first, then timing rounds until the estimates are precise.

One round of a case starts one fresh worker process per contender, all pinned to the same CPU
(a different CPU every two rounds), and asks them for values in turn, A B B A A B ..., so
that they are never measured at the same time and every contender sees the same machine states.
Each round is a block for the paired comparison in perflab.analysis.estimates. (On a shared VM, the speed of
a CPU changes by tens of percent over a fraction of a second; see benchmarks/README.md.)

Stopping rule, fixed before any value is seen (perflab.measure.stopping): a case stops after at
least ``min_rounds`` rounds once every ratio to the reference (or, alone, its median) is decided
or its 95% interval within ``precision`` (only the latter when the user asked for a precision);
or after ``max_rounds`` (perflab's own tests' exact round count). The whole run stops when all
cases have, or when ``max_time`` is spent: it counts from the command's start, fuzzing and checks
included, and leaves the timing phase a share of it at least (perflab.measure.budget). Then at
once, keeping what was measured; a timing worker still busy then is stopped. Why each case
stopped is in the metadata ("stopped"). The jobs before it (checks, fuzzing) must end by their
share of the budget, so a contender that hangs is stopped within the budget in whichever phase.
"""

from __future__ import annotations

import hashlib
import math
import os
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

from perflab.analysis import estimates
from perflab.analysis.intervals import benjamini_hochberg
from perflab.bench.loading import module_name
from perflab.bench.protocol import Job, packages_job, time_job
from perflab.bench.spec import Benchmark
from perflab.measure import clocks, difference_search, metadata, stopping, value_length
from perflab.measure.budget import Budget
from perflab.measure.equivalence import Outputs, check_case, check_hash_seed, not_compared
from perflab.measure.launcher import JobOutcome, StartWorker, Worker, WorkerProcess, run_job
from perflab.measure.settings import Settings
from perflab.measure.sides import Side, contender_sides
from perflab.measure.timing_verdicts import caution, record_timing_checks, repeat_only_unchecked
from perflab.results import machine_speed, stopped
from perflab.results.model import (
    EQUIVALENT,
    FUZZING_CASE,
    INVALID,
    REFERENCE,
    SKIPPED,
    CaseComparison,
    Cell,
    Equivalence,
    ProcessRun,
    RunResult,
)
from perflab.results.quantities import Comparison
from perflab.units import format_time


@dataclass
class Status:
    """What the live display shows."""

    phase: str
    current: str = ""
    round: int = 0
    elapsed: float = 0.0
    precision: dict[tuple[str, str], float] = field(default_factory=dict)


class Listener(Protocol):
    def update(self, status: Status) -> None: ...


class _Silent:
    def update(self, status: Status) -> None:
        pass


def run_benchmark(
    file: str,
    benchmark: Benchmark,
    cases: list[str],
    contenders: list[str],
    settings: Settings,
    listener: Listener = _Silent(),
    fuzz_examples: int = difference_search.DEFAULT_EXAMPLES,
) -> RunResult:
    """Contenders of one benchmark file, against its reference, fuzzed first as ``compare`` does
    (``fuzz_examples`` generated inputs; 0: only the stateful patterns on the declared cases), so
    that "equivalent" means the same in both verbs."""
    reference = benchmark.reference.name
    ordered = [reference] + [c for c in contenders if c != reference] if reference in contenders else contenders
    sides = contender_sides(file, ordered, settings.python)
    budget = Budget.starting_now(settings.max_time)  # fuzzing, checks and timing share it
    fuzz_started = time.monotonic()
    prior = (
        difference_search.fuzz_sides(sides, settings.timeout, fuzz_examples, budget.for_fuzzing())
        if len(sides) > 1
        else []
    )
    fuzz_seconds = time.monotonic() - fuzz_started
    result = run_sides(
        benchmark.name,
        sides,
        cases,
        settings,
        listener,
        prior_equivalence=prior,
        budget=budget,
        compares=benchmark.comparator.compares,
    )
    result.equivalence_seconds += fuzz_seconds
    described = benchmark_metadata(benchmark, cases)
    if described:
        result.metadata["benchmark"] = described
    return result


def benchmark_metadata(benchmark: Benchmark, cases: list[str]) -> dict[str, Any]:
    """What the benchmark file says of itself and of the cases measured (a pyperf script's
    metadata among it), for the results; empty when it says nothing."""
    described: dict[str, Any] = {}
    if benchmark.description:
        described["description"] = benchmark.description
    if benchmark.notes:
        described["notes"] = benchmark.notes
    case_metadata = {name: benchmark.cases[name].metadata for name in cases if benchmark.cases[name].metadata}
    if case_metadata:
        described["cases"] = case_metadata
    return described


def run_sides(
    benchmark_name: str,
    sides: list[Side],
    cases: list[str],
    settings: Settings,
    listener: Listener = _Silent(),
    prior_equivalence: Sequence[Equivalence] = (),
    start: StartWorker = WorkerProcess,
    clock: Callable[[], float] = time.monotonic,
    budget: Budget | None = None,
    compares: bool = True,
) -> RunResult:
    """Check equivalence, then time every (case, side) adaptively; ``sides[0]`` is the reference.

    ``prior_equivalence``: verdicts found before (fuzzing); a contender that is not equivalent
    there has no valid speedup on any case. Ctrl-C stops measuring and keeps everything measured.
    ``budget``: the command's --max-time, started before loading and fuzzing (None: from now); the
    checks end by its share for them, the rounds by its end (perflab.measure.budget). ``compares``:
    False when the benchmark compares no outputs (a pyperf script's): no check job is run, and
    a case that fails is the first timing worker's error. ``start`` starts the workers and ``clock``
    (seconds) bounds the rounds: the real ones but in tests of the runner's own rules
    (tests/unit/test_runner_rules.py).
    """
    reference = sides[0]
    result = RunResult(
        benchmark=benchmark_name,
        file=reference.file,
        reference=reference.name,
        settings=asdict(settings),
        metadata=metadata.collect(reference.file, reference.python),
        work={},
        cells=[Cell(case, side.name) for case in cases for side in sides],
        sides={side.name: asdict(side) for side in sides},
        equivalence=list(prior_equivalence),
    )
    if any(not side.shares_process_with(reference) for side in sides):
        result.metadata["sides"] = {side.name: metadata.side_info(side.file, side.python) for side in sides}
    status = Status("checking equivalence")
    started = clock()
    # Every worker loads the file afresh, so an edit during the run would mix two versions.
    hashes = {side.file: _file_hash(side.file) for side in sides}

    # Seconds of the budget spent before this call (loading, fuzzing); from here on, on ``clock``.
    spent_before = budget.spent() if budget else 0.0
    budget = budget or Budget.starting_now(settings.max_time)

    def job(spec: Job, side: Side, hash_seed: str | None) -> JobOutcome:
        return run_job(spec, settings.timeout, side.python, hash_seed, start, budget.for_checks())

    imported: dict[str, set[str]] = {}  # side -> top-level modules its timing workers imported

    try:
        if compares:
            outputs: Outputs = {}
            for case in cases:
                status.current = case
                listener.update(status)
                verdicts, result.work[case] = check_case(case, sides, job, outputs)
                result.equivalence.extend(verdicts)
            status.current = "hash seed"
            listener.update(status)
            check_hash_seed(sides, outputs, result.equivalence, job)
        else:
            result.equivalence.extend(not_compared(cases, sides))
        result.equivalence_seconds += clock() - started
        _mark_unmeasurable(result)
        status.phase = "timing"
        timing_seconds = budget.for_timing(spent_before + clock() - started)
        rounds = _Rounds(result, {side.name: side for side in sides}, settings, start, clock, imported, timing_seconds)
        rounds.run(cases, listener, status)
    except KeyboardInterrupt:
        result.interrupted = True
    try:
        _record_packages(result, sides, imported, settings.timeout, start)
    except KeyboardInterrupt:
        result.interrupted = True
    result.elapsed = clock() - started
    result.metadata["load_average_at_end"] = metadata.busy_processes()
    result.metadata["changed_during_run"] = [f for f, digest in hashes.items() if _file_hash(f) != digest]
    _finish(result, settings)
    return result


def _file_hash(path: str) -> str | None:
    """The benchmark file's hash, or of every Python file of an asv suite's directory."""
    files = sorted(Path(path).rglob("*.py")) if Path(path).is_dir() else [Path(path)]
    digest = hashlib.sha256()
    try:
        for file in files:
            digest.update(file.read_bytes())
    except OSError:
        return None
    return digest.hexdigest()


def _mark_unmeasurable(result: RunResult) -> None:
    """Contenders that were skipped or failed their check are not timed on that case."""
    for verdict in result.equivalence:
        if verdict.case == FUZZING_CASE:
            continue
        if verdict.status == SKIPPED:
            result.cell(verdict.case, verdict.contender).skipped = verdict.difference
        elif verdict.status not in (EQUIVALENT, REFERENCE, *INVALID):
            result.cell(verdict.case, verdict.contender).error = verdict.difference


class _Rounds:
    """The timing phase: rounds of interleaved values until every case is precise or its
    ``seconds``, counted from its start on ``clock``, are spent; a worker still busy then is stopped.

    A case starts in calibration rounds (values kept, never used): their values alternate between
    two lengths, until the value length is settled (perflab.measure.value_length); from then on every
    side's values are sized to the case's one common length, re-sized after every round."""

    def __init__(
        self,
        result: RunResult,
        sides: dict[str, Side],
        settings: Settings,
        start: StartWorker,
        clock: Callable[[], float],
        imported: dict[str, set[str]],
        seconds: float,
    ):
        self.result, self.sides, self.settings = result, sides, settings
        self.start, self.clock, self.imported = start, clock, imported
        self.started = clock()
        self.deadline = self.started + seconds
        self.budget = Budget(settings.max_time, time.monotonic() + seconds)  # the same deadline, for the workers
        self.seconds = seconds
        self.lengths: dict[str, value_length.CaseLength] = {}
        self.round_seconds = seconds  # a round of one case's share of the timing budget
        self.slow: dict[str, tuple[float, int, int]] = {}  # case -> (value seconds, values, warmups) cut to fit
        self.round_costs: dict[str, list[float]] = {}  # case -> seconds each of its whole rounds took

    def run(self, cases: list[str], listener: Listener, status: Status) -> None:
        result, settings = self.result, self.settings
        active = [case for case in cases if _measurable(result, case)]
        self.lengths = {case: value_length.CaseLength(settings.value_time) for case in active}
        # The ratios the run's FDR correction spans: a case decided on its own must stay decided after it.
        comparisons = max(1, sum(c.contender != result.reference for c in result.cells if c.case in active))
        cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else [None]
        round_number = 0
        try:
            while active:
                # Every case active gets min_rounds rounds of its share: a slow case's values are
                # fewer, rather than its rounds (value_length.values_per_process).
                self.round_seconds = self.seconds / (len(active) * settings.min_rounds)
                for case in active:
                    if self.clock() >= self.deadline:
                        _say_if_calls_exceed_budget(result, settings)
                        self._say_if_rounds_exceed_budget(active)
                        self._stopped(active, stopped.BUDGET)
                        return
                    cells = [c for c in result.cells if c.case == case and not c.error and not c.skipped]
                    status.current, status.round = case, round_number + 1
                    status.elapsed = self.clock() - self.started
                    listener.update(status)
                    # Order flips every round and the CPU every two rounds, so that each CPU sees both
                    # orders (alternating both every round would tie "A first" to one CPU).
                    began = self.clock()
                    self.one_round(cells, round_number, cpus[(round_number // 2) % len(cpus)])
                    if self.clock() < self.deadline:  # a whole round, not one the deadline cut
                        self.round_costs.setdefault(case, []).append(self.clock() - began)
                round_number += 1
                for case in list(active):
                    why = self._why_stop(case, comparisons, status)
                    if why or not _measurable(result, case):
                        active.remove(case)
                        if why:
                            self._stopped([case], why)
                listener.update(status)
        except KeyboardInterrupt:
            self._stopped(active, stopped.INTERRUPTED)
            raise
        finally:
            self._describe_lengths()

    def _why_stop(self, case: str, comparisons: int, status: Status) -> str | None:
        """Why ``case`` has measured enough after this round (perflab.measure.stopping), or None."""
        settings = self.settings
        compared = _case_comparisons(self.result, case, settings)
        precisions = _case_precisions(self.result, case, compared)
        status.precision.update(precisions)
        measured_rounds = _measured_rounds(self.result, case)
        if measured_rounds >= settings.min_rounds:
            if all(p <= settings.precision for p in precisions.values()):
                return stopped.PRECISE
            # (settings.anytime: the intervals are the ones that hold when the rule stops on them)
            if (
                compared
                and settings.anytime
                and all(stopping.decided(c, settings, comparisons) for c in compared.values())
            ):
                return stopped.DECIDED
        return stopped.ROUNDS if measured_rounds == settings.max_rounds else None

    def _say_if_rounds_exceed_budget(self, active: list[str]) -> None:
        """When the budget ran out before some case had the two measured rounds an interval needs,
        because a round of every case costs too much (one process each: its set-up, its first
        call), say how long a round took and what budget would hold them (unless one call alone
        is too long: then that is said)."""
        result = self.result
        short = [case for case in active if _measured_rounds(result, case) < 2]
        if not short or "over_budget" in result.metadata:
            return
        # A round of every case, at each case's cheapest round so far (a case never started: the
        # mean of the others'); then the rounds missing: calibration if not settled, two measured.
        cheapest = {case: min(costs) for case, costs in self.round_costs.items() if costs}
        if not cheapest:  # no whole round to tell the cost of one
            return
        typical = statistics.mean(cheapest.values())
        missing = sum(
            cheapest.get(case, typical)
            * (2 - _measured_rounds(result, case) + (not self.lengths[case].settled if case in self.lengths else 1))
            for case in short
        )
        needed = self.settings.max_time + missing
        needed_text = f"{math.ceil(needed)}" if needed >= 10 else f"{needed:.2g}"
        result.metadata["over_budget"] = (
            f"the time budget (--max-time {self.settings.max_time:g} s) ran out before "
            f"{len(short)} of {len(active)} case(s) had the 2 measured rounds an interval needs: a "
            f"round of one case took {format_time(typical)} here (one process per side, with its "
            f"set-up and first call); raise --max-time to about {needed_text} s, or time fewer "
            "cases (-b REGEX)"
        )

    def _stopped(self, cases: list[str], why: str) -> None:
        """Record why ``cases`` stopped, with their measured rounds (perflab.results.stopped)."""
        record = self.result.metadata.setdefault("stopped", {})
        for case in cases:
            record[case] = {"why": why, "rounds": _measured_rounds(self.result, case)}

    def one_round(self, cells: list[Cell], round_number: int, cpu: int | None) -> None:
        """One live worker per contender, all on ``cpu``; their values alternate A B B A A B ...

        The CPU's state (other tenants, frequency) changes over time; alternating values on one CPU
        makes every contender see the same states, so the per-round ratio cancels them. Past the
        deadline no worker is started and no value asked for.
        """
        if not cells:
            return
        result, settings = self.result, self.settings
        length = self.lengths[cells[0].case]
        calibrating = not length.settled
        if round_number % 2:
            cells = cells[::-1]
        workers = []
        promoted = False  # a calibration round taken as measured (one call a value)
        calibration_seconds = result.metadata.setdefault("calibration_seconds", {}).setdefault(cells[0].case, {})
        reference = self.sides[result.reference]
        try:
            for cell in cells:  # started one by one, so calibrations do not overlap
                if self.clock() >= self.deadline:
                    break
                side = self.sides[cell.contender]
                job = time_job(
                    side.file,
                    side.contender,
                    side.sys_path,
                    cell.case,
                    loops=cell.loops,
                    cpu=cpu,
                    value_time=settings.value_time,
                    reference=reference.contender if side.shares_process_with(reference) else None,
                )
                worker = self.start(job, settings.timeout, side.python, None, self.budget)
                run = ProcessRun(round_number, cell.loops or 0, [], [], calibration=calibrating)
                # Registered before it is ready: Ctrl-C while it sets up or calibrates must kill it too.
                workers.append((cell, worker, run))
                ready = worker.wait_for("ready")
                if ready:
                    cell.loops = run.loops = ready["loops"]
                    run.floor, run.first_call = ready.get("floor"), ready.get("first_call")
                    run.first_call_overhead = ready.get("first_call_overhead")
                    calibration_seconds[cell.contender] = ready.get("calibration_seconds", 0.0)
                    self.imported.setdefault(cell.contender, set()).update(ready.get("modules", []))
            values, checking = self._values_per_process(workers, calibrating)
            if calibrating and not checking and workers and self._one_call_a_value(workers):
                # One call a value already, and no check of longer values affordable: nothing to
                # calibrate, so the round is a measured one (a slow case has no round to spare).
                length.settled, calibrating, promoted = True, False, True
                for _, _, run in workers:
                    run.calibration = False
                values, _ = self._values_per_process(workers, calibrating)
            warmups = settings.warmups
            if not calibrating and workers:
                seconds = max(self._value_seconds(cell, run) for cell, _, run in workers)
                warmups = value_length.warmups_for(settings.warmups, seconds)
                if values < min(settings.values, value_length.MIN_VALUES) or warmups < settings.warmups:
                    self.slow[cells[0].case] = (seconds, values, warmups)
            for kind, count in (("warmup", warmups), ("value", values)):
                for index in range(count):
                    for _cell, worker, run in workers[::-1] if index % 2 else workers:
                        if self.clock() >= self.deadline:
                            return
                        # A length check: every other value is LENGTH_FACTOR times longer.
                        longer = checking and kind == "value" and index % 2 == 1 and run.loops
                        loops = value_length.LENGTH_FACTOR * run.loops if longer else None
                        event = worker.request_event(kind, loops)
                        if event is not None:
                            self._keep(run, kind, event)
        finally:  # Ctrl-C and the deadline included: close every worker and keep what it measured
            for cell, worker, run in workers:
                outcome = worker.close()
                run.error = outcome.error
                checked = outcome.of("integrity")
                if checked:
                    run.input_changed, run.output_wrong = checked[0]["input_changed"], checked[0]["output_wrong"]
                    record_timing_checks(result, cell, run)
                if run.values or run.error:
                    cell.runs.append(run)
                # The budget running out during a set-up or a value ends the timing as it does
                # between values: not an error of the contender (a hang and a slow set-up look
                # alike); the run keeps what stopped it, for the "not timed" line (RunResult.failures).
                if outcome.error and not outcome.over_budget:
                    cell.error = outcome.error + (f" ({outcome.location})" if outcome.location else "")
            if promoted and any(run.values and _median_wall(run) < settings.value_time for _, _, run in workers):
                for _, _, run in workers:  # a long first call, short calls after it: values to size loops only
                    run.calibration = True
            self._size([(cell, run) for cell, _, run in workers if run.values and not cell.error], calibrating)

    def _keep(self, run: ProcessRun, kind: str, event: dict[str, Any]) -> None:
        """One event's value, in the clock the run measures, the other clock beside it."""
        wall, cpu = event["value"], event.get("cpu")
        if kind == "warmup":
            run.warmups.append(cpu if self.settings.clock == "cpu" and cpu is not None else wall)
            return
        if self.settings.clock == "cpu" and cpu is not None:
            run.values.append(cpu)
            run.wall_values.append(wall)
        else:
            run.values.append(wall)
            if cpu is not None:
                run.cpu_values.append(cpu)
        if "waited" in event:
            run.waited.append(event["waited"])
        if "probe" in event:
            run.probes.append(event["probe"])
        if run.calibration:
            run.value_loops = [*(run.value_loops or []), event.get("loops", run.loops)]
        for metric, amount in event.get("extra", {}).items():
            run.extra.setdefault(metric, []).append(amount)

    def _values_per_process(
        self, workers: list[tuple[Cell, Worker, ProcessRun]], calibrating: bool
    ) -> tuple[int, bool]:
        """Values each worker gives this round, and whether they check the value length: in a
        measured round, ``settings.values`` (fewer when values are long); in a calibration round,
        as many pairs of a short and a long value as a length check may afford, or, where none is
        affordable, a few values only to size the next round's loops (and the case says so)."""
        values = self.settings.values
        if not workers:
            return values, False
        length = self.lengths[workers[0][0].case]
        if not calibrating:
            seconds = max(self._value_seconds(cell, run) for cell, _, run in workers)
            common = max(seconds, length.common_length({cell.contender: _per_call(cell) for cell, _, _ in workers}))
            return value_length.values_per_process(values, common, self.round_seconds, len(workers)), False
        longest = max(self._value_seconds(cell, run) for cell, _, run in workers)
        pairs = value_length.check_pairs(values, longest, len(workers), self.settings.max_time)
        if not pairs:
            length.unchecked = "not checked: a check of two lengths does not fit in 10% of --max-time"
            return min(values, value_length.MIN_VALUES), False
        return 2 * pairs, True

    def _one_call_a_value(self, workers: list[tuple[Cell, Worker, ProcessRun]]) -> bool:
        """Whether every side makes one call a value, at the case's common length too (sides whose
        first calls differ several-fold would get more calls a value on the shorter side)."""
        if any(run.loops != 1 for _, _, run in workers):
            return False
        first = {cell.contender: run.first_call or 0.0 for cell, _, run in workers}
        common = value_length.common_length(self.settings.value_time, first)
        return all(value_length.loops_for(common, seconds) == 1 for seconds in first.values())

    def _value_seconds(self, cell: Cell, run: ProcessRun) -> float:
        """About how long one value of ``run`` lasts: from the cell's last round, else from its
        calibration (one call when a call is longer than the value time)."""
        if _per_call(cell):
            return run.loops * _per_call(cell)
        return max(self.settings.value_time, run.first_call or 0.0) if run.loops == 1 else self.settings.value_time

    def _size(self, measured: list[tuple[Cell, ProcessRun]], calibrating: bool) -> None:
        """After a round: the case's length check (calibrating), then every side's loops for the
        next round, sized to the case's one common value length from this round's time per call."""
        if not measured:
            return
        length = self.lengths[measured[0][0].case]
        per_call = {cell.contender: _median_wall(run) for cell, run in measured}
        if calibrating:
            checks = [found for cell, run in measured if (found := _length_check(cell.contender, run)) is not None]

            def affordable(short: float) -> bool:
                return value_length.check_pairs(self.settings.values, short, len(measured), self.settings.max_time) > 0

            length.after_check(checks, affordable)
        common = length.common_length(per_call) if length.settled else length.length
        for cell, _run in measured:
            cell.loops = value_length.loops_for(common, per_call[cell.contender])

    def _describe_lengths(self) -> None:
        """The value length of every case and its checks, in the metadata; a warning where the
        length moved an estimate."""
        described = self.result.metadata.setdefault("value_lengths", {})
        for case, length in self.lengths.items():
            cells = [c for c in self.result.cells if c.case == case and c.measured_runs()]
            per_call = {c.contender: _per_call(c) for c in cells}
            described[case] = {
                "seconds": length.common_length(per_call) if per_call else length.length,
                "checked": [asdict(check) | {"moved": check.moved} for check in length.checks],
            }
            if length.unchecked:
                described[case]["unchecked"] = length.unchecked
            warning = length.warning(case)
            if warning:
                self.result.metadata.setdefault("timing_warnings", []).append(warning)
            if case in self.slow:
                seconds, values, warmups = self.slow[case]
                described[case]["values_per_process"], described[case]["warmups"] = values, warmups
                self.result.metadata.setdefault("timing_warnings", []).append(
                    f"{case}: one value lasts {format_time(seconds)}, so each process gave {values} "
                    f"value(s) after {warmups} warmup(s) (not {self.settings.values} after "
                    f"{self.settings.warmups}), to fit its rounds in --max-time "
                    f"{self.settings.max_time:g} s: its interval rests on fewer values"
                )


def _median_wall(run: ProcessRun) -> float:
    """Wall seconds per call of a run's values (its values, or beside CPU-clock values, its wall ones)."""
    return statistics.median(run.wall_values or run.values)


def _per_call(cell: Cell) -> float:
    """Wall seconds per call of the cell's last run with values (one the budget cut has none); 0 before any."""
    measured = [run for run in cell.runs if run.values]
    return _median_wall(measured[-1]) if measured else 0.0


def _length_check(contender: str, run: ProcessRun) -> value_length.LengthCheck | None:
    """The run's length check: its values alternate short and long (``value_loops``), compared by
    CPU time where the thread ran or waited for a CPU through its values (CPU-bound code), else by
    wall time (an operation that sleeps or waits on another process, whose CPU time says little)."""
    loops = run.value_loops or []
    wall = run.wall_values or run.values
    cpu = run.values if run.wall_values else run.cpu_values
    if len(set(loops)) != 2 or len(loops) != len(wall):
        return None
    measure = cpu if len(cpu) == len(wall) and clocks.run_cpu_bound(run) else wall
    short_loops, long_loops = sorted(set(loops))
    short = [(w, m) for w, m, n in zip(wall, measure, loops) if n == short_loops]
    long = [(w, m) for w, m, n in zip(wall, measure, loops) if n == long_loops]
    return value_length.check(contender, short, long, short_loops, long_loops)


def _measured_rounds(result: RunResult, case: str) -> int:
    """The measured (not calibration) rounds of ``case`` so far."""
    return len({run.round for c in result.cells if c.case == case for run in c.measured_runs()})


def _measurable(result: RunResult, case: str) -> bool:
    return any(not c.error and not c.skipped for c in result.cells if c.case == case)


def _record_packages(
    result: RunResult, sides: list[Side], imported: dict[str, set[str]], timeout: float, start: StartWorker
) -> None:
    """The versions of the distributions the timed code imported, in the result's metadata: all
    of them in "packages", and each side's own in "sides" when sides differ (another interpreter or
    revision may have other versions). One job per interpreter and import path resolves them."""
    groups: dict[tuple[str, tuple[str, ...]], list[Side]] = {}
    for side in sides:
        if imported.get(side.name):
            groups.setdefault((side.python, tuple(side.sys_path)), []).append(side)
    for (python, sys_path), members in groups.items():
        # A benchmark file's own module is no distribution's: when the timed code imported nothing
        # else, no worker is started to scan every installed distribution (a fifth of a CPU-second).
        own = {module_name(side.file) for side in members}
        modules = sorted(set().union(*(imported[side.name] for side in members)) - own)
        outcome = run_job(packages_job(modules, list(sys_path)), timeout, python, None, start) if modules else None
        by_module = outcome.of("packages")[0]["modules"] if outcome and outcome.of("packages") else {}
        for side in members:
            versions = {
                dist: version for module in imported[side.name] for dist, version in by_module.get(module, {}).items()
            }
            result.metadata.setdefault("packages", {}).update(versions)
            if "sides" in result.metadata:
                result.metadata["sides"][side.name].setdefault("packages", {}).update(versions)


def _say_if_calls_exceed_budget(result: RunResult, settings: Settings) -> None:
    """When the budget ran out before a case was measured because one call takes longer than the
    whole budget, say so (the fix is a larger --max-time, not more patience)."""
    calibrations = result.metadata.get("calibration_seconds", {})
    slow = []
    for cell in result.cells:
        values = [value for run in cell.runs for value in run.warmups + run.values]
        seconds = min(values, default=calibrations.get(cell.case, {}).get(cell.contender, 0.0))
        if not cell.measured_runs() and cell.loops == 1 and seconds >= settings.max_time / 2:
            slow.append(f"{cell.case}/{cell.contender} ({seconds:.3g} s per call)")
    if slow:
        result.metadata["over_budget"] = (
            f"one call takes too long for the time budget (--max-time "
            f"{settings.max_time:g} s) to measure: {', '.join(slow)}; "
            "raise --max-time to measure it"
        )


def _case_comparisons(result: RunResult, case: str, settings: Settings) -> dict[tuple[str, str], Comparison]:
    """Every ratio to the reference on ``case`` so far (``_compared``). A cell whose worker failed
    is left out: it gets no more rounds, so its interval would never narrow and its case would run
    on to the time budget."""
    cells = [c for c in result.cells if c.case == case and c.measured_runs() and not c.error]
    reference = next((c for c in cells if c.contender == result.reference), None)
    if reference is None:
        return {}
    return {(case, c.contender): _compared(reference, c, settings) for c in cells if c is not reference}


def _compared(reference: Cell, cell: Cell, settings: Settings) -> Comparison:
    """The paired ratio of ``cell`` to ``reference``: anytime-valid where the rule may have stopped
    on it, that is from ``min_rounds`` rounds on (fewer rounds end only when the budget does, which
    does not look at the values, so their t interval holds)."""
    rounds = len(set(reference.round_values()) & set(cell.round_values()))
    anytime = settings.anytime and rounds >= settings.min_rounds
    return estimates.compare_paired(reference.round_values(), cell.round_values(), anytime)


def _case_precisions(
    result: RunResult, case: str, compared: dict[tuple[str, str], Comparison]
) -> dict[tuple[str, str], float]:
    """Relative 95% CI half-width of what the stopping rule watches on ``case``.

    With a reference to compare against, that is every ratio to it (``compared``): ratios are
    measured interleaved, so they converge even when absolute times drift with the machine's
    load. A lone contender is held to its median. (All precisions are reported at the end either way.)
    """
    if compared:
        return {key: comparison.ratio.relative_half_width for key, comparison in compared.items()}
    cells = [c for c in result.cells if c.case == case and c.measured_runs() and not c.error]
    return {
        (case, c.contender): estimates.estimate_cell(c.process_values()).median.relative_half_width
        for c in cells
        if c.process_values()
    }


def _finish(result: RunResult, settings: Settings) -> None:
    """Final estimates, comparisons with FDR-adjusted verdicts, and geometric means."""
    for cell in result.cells:
        if cell.process_values():
            cell.estimates = estimates.estimate_cell(cell.process_values())
    for case in {cell.case for cell in result.cells}:
        watched = _case_precisions(result, case, _case_comparisons(result, case, settings))
        for cell in result.cells:
            if cell.case == case and cell.measured_runs() and not cell.error:
                mine = [p for (_, contender), p in watched.items() if contender == cell.contender]
                cell.target_reached = all(p <= settings.precision for p in (mine or watched.values()))
    pending = []
    for cell in result.cells:
        reference = result.cell(cell.case, result.reference)
        if cell is reference or not cell.measured_runs() or not reference.measured_runs():
            continue
        comparison = _compared(reference, cell, settings)
        if comparison.pairs:
            pending.append((cell, comparison))
    adjusted = benjamini_hochberg([comparison.p_value for _, comparison in pending])
    for (cell, comparison), p_adjusted in zip(pending, adjusted):
        reference = result.cell(cell.case, result.reference)
        valid = result.equivalent(cell.case, cell.contender)
        result.comparisons.append(
            CaseComparison(
                cell.case,
                cell.contender,
                result.reference,
                comparison,
                p_adjusted,
                estimates.verdict(comparison.ratio.value, p_adjusted, settings.alpha, settings.min_effect),
                valid=valid,
                caution=caution(reference, cell, comparison.ratio.value),
                # A short run: said, so that a memo cache's speedup is not taken for checked.
                unchecked=repeat_only_unchecked(reference, cell, comparison.ratio.value) if valid else None,
            )
        )
    _compare_clocks(result, settings)
    machine_speed.record(result)
    for contender in {c.contender for c in result.comparisons}:
        result.geometric_means[contender] = estimates.geometric_mean(
            [c.comparison for c in result.comparisons if c.contender == contender]
        )


def _compare_clocks(result: RunResult, settings: Settings) -> None:
    """Each cell's share of wall time spent waiting for a CPU, in the metadata; with the wall clock,
    a warning for every ratio that the thread's CPU time contradicts (perflab.measure.clocks)."""
    waiting: dict[str, dict[str, float]] = {}
    for cell in result.cells:
        share = clocks.waiting_share(cell)
        if share is not None:
            waiting.setdefault(cell.case, {})[cell.contender] = share
    if waiting:
        result.metadata["waiting_for_cpu"] = waiting
    if settings.clock != "wall":
        return
    for comparison in result.comparisons:
        said = clocks.disagreement(
            comparison.case,
            result.cell(comparison.case, result.reference),
            result.cell(comparison.case, comparison.contender),
            comparison.comparison,
            settings.min_effect,
        )
        if said:
            result.metadata.setdefault("timing_warnings", []).append(said)
