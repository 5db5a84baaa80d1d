"""The worker process: runs one job on one (case, contender) and streams events back.

Run as ``python -m perflab.bench.worker`` with a JSON job as the first line of standard input. Events are JSON lines on
the original standard output; the benchmark's own prints are sent to standard error so they can
never corrupt the stream. Each value is written as soon as it is measured, so a worker that is
killed half-way still hands over what it measured.

Jobs (any job may carry "sys_path": directories to import from first, e.g. a revision's worktree):
  {"mode": "check", "file", "case", "contender", "reference" | "expected" (+ "expected_input",
   "reference_shares"), "send_output"}
      run the contender on its own copy of the case input and compare its output with the
      reference's output, computed here, or given pickled and base64-encoded as "expected"; also
      its input after the call (perflab.bench.worker.integrity) and whether two calls share their output. One
      "check" event (equivalent, difference, note, comparator, mutation, shared, output: the
      contender's output pickled when "send_output", for the hash-seed check).
  {"mode": "describe", "file"}
      send the names of the cases and contenders and the reference.
  {"mode": "packages", "modules"}
      send the distributions (name -> version) that provide each top-level module named, as this
      interpreter and "sys_path" see them: once per run, for the modules the timing workers imported.
  {"mode": "output", "file", "case", "contender"}
      send the contender's output and its input after the call, pickled, and whether two calls
      share their outputs, for a check on another side.
  {"mode": "seed", "file", "contender", "expected": {case: pickled output}}
      run under another PYTHONHASHSEED than the check jobs: the contender's output on each case
      compared with the one given; one "seed" event (differences: case -> difference).
  {"mode": "time", "file", "case", "contender", "loops" (null: calibrate), "value_time", "cpu", "reference"}
      set up the contender (pinned to ``cpu``), report "ready" (with the first call's time, the
      harness floor, perflab.bench.worker.timing_checks, and the top-level modules the benchmark
      imported), then answer each command line {"do": "warmup"} or
      {"do": "value"} with one value: the mean time per call over ``loops`` calls (each on its own
      copy of the input when the benchmark declares mutates_input). {"do": "exit"} ends it, after
      one "integrity" event (input_changed, output_wrong; the output is compared with
      "reference"'s when given). The parent alternates commands between the workers of
      several contenders, so their values are interleaved in time on the same CPU. "ready" and
      each value carry "background" when the contender leaves work running beside the timed
      thread (threads using CPU, child processes): it would slow the other contenders' workers.
  {"mode": "profile", "file", "case", "contender", "value_time", "duration", "inprocess", "cpu"}
      set up and calibrate, report "ready" (with the pid a sampler attaches to and the
      interpreter's paths), then answer each {"do": "profile"} by calling ``measured_region``
      over and over for ``duration`` seconds and replying with the values measured meanwhile.
      With ``inprocess`` ({"rate", "mode"}), the worker samples itself (perflab.bench.worker.inprocess_sampler)
      and the reply carries the folded stacks. {"do": "exit"} ends it.
  {"mode": "count", "file", "case", "contender", "loops", "warmups", "memory"}
      for perflab.metrics: set up, warm up (``warmups`` calls), then call ``measured_region`` with
      0 and with ``loops`` calls (``loops`` may be 0), each between two region markers, and exit
      with one "count" event: the peak RSS of this process before and after the calls and, with
      ``memory``, tracemalloc's view of a further ``loops`` calls.
  {"mode": "fuzz", "file", "contender", "reference", "examples", "seed", "patterns" (null: all)}
      equivalence fuzzing (perflab.bench.worker.fuzz): ``examples`` generated inputs (0: none) and stateful
      call patterns; one "fuzz" event (equivalent, difference, counterexample, pattern,
      examples_run, calls, notes). A strategy that raises is an error of kind "strategy".

Standard library only: this module also runs under interpreters where perflab is not installed.
"""

from __future__ import annotations

import base64
import itertools
import json
import os
import pickle
import sys
import threading
import time
import traceback
from collections.abc import Callable, Generator
from typing import Any, TextIO

from perflab.bench.commands import remove_written_inputs
from perflab.bench.loading import load_benchmark
from perflab.bench.optional import missing_dependency
from perflab.bench.spec import BenchmarkFileError
from perflab.bench.worker import fuzz, integrity, timing_checks
from perflab.bench.worker.process_memory import peak_rss

# Calibration stops doubling once one batch of calls lasts this fraction of the target.
_CALIBRATION_FRACTION = 0.25
_CALIBRATION_BATCHES = 4
_MAX_LOOPS = 10**9


def measured_region(operation: Callable[[Any], Any], argument: Any, loops: int) -> float:
    """Call ``operation(argument)`` ``loops`` times and return the elapsed seconds.

    Profilers trim stacks to what runs below this function, so its name is part of the protocol.
    An operation with a ``times_itself(argument, loops)`` method (a pyperf script's
    ``bench_time_func``, perflab.bench.pyperf_script) measures the calls itself.
    """
    times_itself = getattr(operation, "times_itself", None)
    if times_itself is not None:
        return times_itself(argument, loops)
    timer = time.perf_counter
    start = timer()
    for _ in itertools.repeat(None, loops):
        operation(argument)
    return timer() - start


def measured_region_fresh(operation: Callable[[Any], Any], arguments: list[Any]) -> float:
    """Call ``operation`` once on each of ``arguments`` (copies made before, outside the timed
    region) and return the elapsed seconds: the timed loop of a benchmark declaring
    ``mutates_input=True``, where no call may see what an earlier one did to its input."""
    timer = time.perf_counter
    start = timer()
    for argument in arguments:
        operation(argument)
    return timer() - start


def calibrate(operation: Callable[[Any], Any], argument: Any, value_time: float) -> int:
    """The number of calls that makes one value last about ``value_time`` seconds."""
    return calibrate_region(lambda loops: measured_region(operation, argument, loops), value_time, _MAX_LOOPS)


def calibrate_region(region: Callable[[int], float], value_time: float, max_loops: int) -> int:
    """The loop count (at most ``max_loops``) that makes ``region(loops)`` last about ``value_time``."""
    steps = calibration_steps(value_time, max_loops)
    loops = next(steps)
    try:
        while True:
            loops = steps.send(region(loops))
    except StopIteration as done:
        return done.value


def calibration_steps(value_time: float, max_loops: int = _MAX_LOOPS) -> Generator[int, float, int]:
    """The calibration rule as a generator: it yields a loop count to time, is sent the seconds
    those calls took, and returns the calibrated loop count. (A generator, so that code that
    cannot call a timing function directly, e.g. a coroutine inside a running event loop in
    perflab.pytest_plugin, follows the same rule.)"""
    loops = 1
    while True:
        elapsed = yield loops
        if elapsed >= value_time * _CALIBRATION_FRACTION or loops >= max_loops:
            break
        loops = min(max_loops, loops * (2 if elapsed > 0 else 10))
    if loops == 1 and elapsed >= value_time:
        return 1  # one call is a value already: more batches would only spend the time budget
    # The fastest of a few batches: one batch that lost the CPU half-way would cut the loop count
    # (seen: 6 loops instead of ~100 under load), and values of very different lengths on two
    # sides are not hit alike by other processes' time slices.
    for _ in range(_CALIBRATION_BATCHES):
        elapsed = min(elapsed, (yield loops))
    return max(1, min(max_loops, round(loops * value_time / max(elapsed, 1e-9))))


# CPU time used outside the timed thread beyond this share of the elapsed time (plus a little for
# the interpreter's own housekeeping) means a contender left work running.
_BACKGROUND_CPU_SHARE = 0.05
_BACKGROUND_CPU_SLACK = 0.002


class BackgroundWatch:
    """What a contender leaves running beside the timed thread while it is measured: threads that
    use CPU, child processes. On the pinned CPU they would take time from every other worker."""

    def __init__(self) -> None:
        self._wall, self._process, self._thread = time.perf_counter(), time.process_time(), time.thread_time()

    def wall(self) -> float:
        return time.perf_counter() - self._wall

    def report(self) -> str | None:
        """One line saying what runs in the background, None if nothing does."""
        outside = (time.process_time() - self._process) - (time.thread_time() - self._thread)
        found = []
        if outside > _BACKGROUND_CPU_SHARE * self.wall() + _BACKGROUND_CPU_SLACK:
            threads = [t.name for t in threading.enumerate() if t is not threading.main_thread()]
            found.append(
                f"it used {outside / self.wall():.0%} of a CPU outside the timed thread"
                + (f" (threads left running: {', '.join(threads[:3])})" if threads else "")
            )
        children = _child_processes()
        if children:
            found.append(f"it left {len(children)} child process(es) running (pid {', '.join(children[:3])})")
        return "; ".join(found) or None


def _child_processes() -> list[str]:
    """This process's live children (Linux /proc; elsewhere none are seen)."""
    found = []
    try:
        for task in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{task}/children") as listing:
                found += listing.read().split()
    except OSError:
        return []
    return found


class EventStream:
    def __init__(self, stream: TextIO):
        self.stream = stream

    def send(self, event: str, **fields: Any) -> None:
        self.stream.write(json.dumps({"event": event, **fields}) + "\n")
        self.stream.flush()


def run_check(job: dict, events: EventStream) -> None:
    """Compare the contender with the reference: computed here from the same file, or, for a
    reference on another side (revision, interpreter), given pickled as "expected" (with the
    reference's input after its call as "expected_input").

    Every call gets its own copy of the case input, so no call sees what another did to it. Beyond
    the output: the contender's input must end as the reference's does (perflab.bench.worker.integrity), and
    two calls on equal inputs must not return shared objects unless the reference's do.
    """
    benchmark, case, argument = _load_case(job)
    path = job["file"]
    events.send("work", work=case.work(argument))
    reference = benchmark.contenders[job["reference"]] if "reference" in job else None
    if reference is None:
        reference_output = pickle.loads(base64.b64decode(job["expected"]))
        reference_input = pickle.loads(base64.b64decode(job["expected_input"])) if job.get("expected_input") else None
    else:
        reference_input = fresh_input(case, argument, path)
        reference_output = _call(reference, reference_input, path, "reference")
    contender = benchmark.contenders[job["contender"]]
    contender_input = fresh_input(case, argument, path)
    output = _call(contender, contender_input, path, "contender")
    outcome = benchmark.comparator.check(reference_output, output)
    pickled = _pickled(output) if job.get("send_output") else None  # before the sharing check changes it
    mutation = None
    if job.get("reference") == job["contender"]:  # the reference itself: it may not change what timing repeats
        if not benchmark.mutates_input:
            mutation = _reference_mutation(argument, contender_input)
    elif reference_input is not None:
        mutation = integrity.mutation(argument, reference_input, argument, contender_input, benchmark.mutates_input)
    # A second call on an equal input: it must give the same output again (state kept across
    # calls shows here) and, unless the reference's are shared too, not the same objects.
    second = _call(contender, fresh_input(case, argument, path), path, "contender")
    again = benchmark.comparator.check(reference_output, second)
    if outcome.equivalent and not again.equivalent:
        outcome = again
        outcome.difference = f"a second call on an equal input: {again.difference}"
    shared = None if benchmark.shares_output else integrity.shared_output(output, second)
    if shared and _reference_shares(job, reference, case, argument):  # the API's own way: allowed
        shared = None
    events.send(
        "check",
        equivalent=outcome.equivalent,
        difference=outcome.difference,
        note=outcome.note,
        comparator=benchmark.comparator.name,
        mutation=mutation,
        shared=shared,
        output=pickled,
    )


def _reference_shares(job: dict, reference, case, argument: Any) -> bool:
    """Whether the reference's outputs are shared too: told by the reference's side, or tried here."""
    if reference is None:
        return bool(job.get("reference_shares"))
    path = job["file"]
    return (
        integrity.shared_output(
            _call(reference, fresh_input(case, argument, path), path, "reference"),
            _call(reference, fresh_input(case, argument, path), path, "reference"),
        )
        is not None
    )


def _reference_mutation(before: Any, after: Any) -> str | None:
    change = integrity.changed(before, after)
    if change is None:
        return None
    return (
        f"the reference changes its input ({change}: before != after), so every timed call after the first would "
        "run on a changed input; declare Benchmark(..., mutates_input=True) to time each call on a fresh copy"
    )


def run_seed(job: dict, events: EventStream) -> None:
    """Under this worker's PYTHONHASHSEED, the contender's output on each case compared with its
    output from another process (``expected``: case -> pickled, from the check jobs): output that
    depends on the hash seed (set or dict order leaking out) differs here."""
    benchmark = load_benchmark(job["file"])
    contender = benchmark.contenders[job["contender"]]
    differences = {}
    for case_name, pickled in job["expected"].items():
        case = benchmark.cases[case_name]
        output = _call(contender, _build_input(case, job["file"]), job["file"], "contender")
        outcome = benchmark.comparator.check(pickle.loads(base64.b64decode(pickled)), output)
        if not outcome.equivalent:
            differences[case_name] = outcome.difference
    events.send("seed", differences=differences)


def fresh_input(case, argument: Any, path: str) -> Any:
    """A copy of the case input that no other call has seen (built again if it cannot be copied)."""
    try:
        return integrity.snapshot(argument)
    except Exception:
        return _build_input(case, path)


def _pickled(value: Any) -> str | None:
    try:  # protocol 4 is read by every Python perflab supports, whichever side wrote it
        return base64.b64encode(pickle.dumps(value, protocol=4)).decode()
    except Exception:
        return None


def run_describe(job: dict, events: EventStream) -> None:
    """Names of the cases and contenders, as this side's file and interpreter see them."""
    benchmark = load_benchmark(job["file"])
    events.send(
        "describe",
        name=benchmark.name,
        cases=list(benchmark.cases),
        contenders=list(benchmark.contenders),
        reference=benchmark.reference.name,
    )


def run_output(job: dict, events: EventStream) -> None:
    """Send the contender's output on the case, pickled, for a check on another side."""
    benchmark, case, argument = _load_case(job)
    events.send("work", work=case.work(argument))
    output = _call(benchmark.contenders[job["contender"]], argument, job["file"], "reference")
    pickled = _pickled(output)
    if pickled is None:
        raise UserCodeError(
            "reference",
            job["contender"],
            TypeError("its output cannot be pickled for comparison with another side"),
            job["file"],
        )
    again = _call(
        benchmark.contenders[job["contender"]], fresh_input(case, argument, job["file"]), job["file"], "reference"
    )
    events.send(
        "output", pickled=pickled, input=_pickled(argument), shares=bool(integrity.shared_output(output, again))
    )


def _load_case(job: dict) -> tuple[Any, Any, Any]:
    """The benchmark, the job's case and its input (built here, outside any timed region)."""
    benchmark = load_benchmark(job["file"])
    case = benchmark.cases[job["case"]]
    return benchmark, case, _build_input(case, job["file"])


def _build_input(case, path: str) -> Any:
    try:
        return case.build()
    except Exception as error:
        raise UserCodeError("case", case.name, error, path) from error


def _call(contender, argument: Any, path: str, role: str) -> Any:
    try:
        return contender.build()(argument)
    except Exception as error:
        raise UserCodeError(role, contender.name, error, path) from error


def run_timing(job: dict, events: EventStream, commands: TextIO) -> None:
    """Set up, report "ready", then measure one warmup or value per command until "exit".

    Beside the values (perflab.bench.worker.timing_checks): the first call of the process on a fresh copy of
    the input, the harness's floor, and after the last value whether the input changed and
    whether the contender still gives the reference's output.
    """
    _pin(job)
    modules_before = set(sys.modules)
    benchmark, case, argument = _load_case(job)
    contender = benchmark.contenders[job["contender"]]
    fresh = benchmark.mutates_input
    input_digest = integrity.digest(argument)
    try:
        operation = contender.build()
        watch = BackgroundWatch()
        first_call = timing_checks.first_call(operation, fresh_input(case, argument, job["file"]))
        if fresh:
            limit = timing_checks.fresh_loops_limit(argument)

            def value(loops: int) -> float:
                return measured_region_fresh(
                    operation, [fresh_input(case, argument, job["file"]) for _ in range(loops)]
                )

            loops = min(limit, job.get("loops") or calibrate_region(value, job["value_time"], limit))
        else:

            def value(loops: int) -> float:
                return measured_region(operation, argument, loops)

            loops = job.get("loops") or calibrate(operation, argument, job["value_time"])
        floor = timing_checks.floor(
            lambda function, calls: (
                measured_region_fresh(function, [argument] * calls)
                if fresh
                else measured_region(function, argument, calls)
            ),
            loops,
        )
        events.send(
            "ready",
            loops=loops,
            first_call=first_call,
            floor=floor,
            calibration_seconds=max(0.0, watch.wall() - first_call),  # what calibrating cost the budget
            background=watch.report(),
            modules=sorted({name.partition(".")[0] for name in set(sys.modules) - modules_before}),
        )
        timed = 0
        for line in commands:
            kind = json.loads(line)["do"]
            if kind == "exit":
                break
            watch = BackgroundWatch()
            measured = value(loops) / loops
            timed += kind == "value"
            # A command contender (perflab.bench.commands) also reports its processes' CPU time and memory.
            extra = operation.take_extra() if hasattr(operation, "take_extra") else None
            events.send(kind, value=measured, background=watch.report(), **({"extra": extra} if extra else {}))
    except Exception as error:
        raise UserCodeError("contender", contender.name, error, job["file"]) from error
    events.send(
        "integrity",
        **timing_checks.after_values(
            benchmark,
            job.get("reference"),
            operation,
            argument,
            input_digest,
            lambda: fresh_input(case, argument, job["file"]),
            check_output=timed > 0,  # no timed value (the budget ran out): no timed state to check, no more calls
        ),
    )


def _pin(job: dict) -> None:
    """Run on the job's "cpu" (when given and the platform can pin)."""
    if job.get("cpu") is not None and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {job["cpu"]})


def run_profile(job: dict, events: EventStream, commands: TextIO) -> None:
    """Set up (on the job's "cpu", if given: the parent pins the worker to the profiled CPU once it
    is ready), report "ready", then keep the operation running for ``duration`` per command."""
    import sysconfig

    _pin(job)

    benchmark, case, argument = _load_case(job)
    contender = benchmark.contenders[job["contender"]]
    try:
        operation = contender.build()
        loops = calibrate(operation, argument, job["value_time"])
        events.send("ready", loops=loops, pid=os.getpid(), paths=sysconfig.get_paths())
        for line in commands:
            if json.loads(line)["do"] == "exit":
                return
            sampler = None
            if job.get("inprocess"):
                from perflab.bench.worker.inprocess_sampler import InProcessSampler

                sampler = InProcessSampler(job["inprocess"]["rate"], job["inprocess"]["mode"])
                sampler.start()
            values = []
            deadline = time.perf_counter() + job["duration"]
            while time.perf_counter() < deadline:
                values.append(measured_region(operation, argument, loops) / loops)
            events.send(
                "profile",
                value=sorted(values)[len(values) // 2],
                values=values,
                stacks=sampler.stop() if sampler else None,
            )
    except Exception as error:
        raise UserCodeError("contender", contender.name, error, job["file"]) from error


def region_marker() -> None:
    """Marks the start and end of a counted region for a tool watching this process.

    A call that costs nothing and that benchmarks never make, so that ``valgrind --tool=callgrind
    --dump-before=_PyEval_GetSwitchInterval`` (the C function behind it, exported even by stripped
    interpreters) dumps its counts exactly at region boundaries (perflab.metrics.instructions).
    """
    sys.getswitchinterval()


def run_count(job: dict, events: EventStream) -> None:
    """Warm up, then 0 calls and ``loops`` calls between region markers; report peak memory."""
    import gc

    benchmark, case, argument = _load_case(job)
    contender = benchmark.contenders[job["contender"]]
    loops = job["loops"]
    try:
        operation = contender.build()
        measured_region(operation, argument, job.get("warmups", 1))
        gc.collect()  # the same collector state in every repeated run
        rss_before = peak_rss()
        for calls in (0, loops):  # the 0-call region is the fixed cost, subtracted by the parent
            region_marker()
            measured_region(operation, argument, calls)
            region_marker()
        rss_after = peak_rss()
        traced = _traced_memory(operation, argument, loops) if job.get("memory") else None
    except Exception as error:
        raise UserCodeError("contender", contender.name, error, job["file"]) from error
    events.send("count", loops=loops, peak_rss_before=rss_before, peak_rss_after=rss_after, traced=traced)


def _traced_memory(operation: Callable[[Any], Any], argument: Any, loops: int) -> dict[str, int]:
    """tracemalloc over ``loops`` calls: the peak above the start and what was still held after."""
    import tracemalloc

    tracemalloc.start()
    try:
        start, _ = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        measured_region(operation, argument, loops)
        end, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return {"start": start, "end": end, "peak": peak}


def run_fuzz(job: dict, events: EventStream) -> None:
    """Generated inputs and stateful call patterns beyond the declared cases (perflab.bench.worker.fuzz)."""
    path = job["file"]
    benchmark = load_benchmark(path)
    declared = {name: _build_input(case, path) for name, case in benchmark.cases.items()}
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
    )
    if not benchmark.fuzz:
        report.notes.insert(0, "generated inputs skipped: the benchmark declares fuzz=False")
    events.send("fuzz", **report.to_event())


class UserCodeError(Exception):
    """User code (a case builder, the reference or a contender) raised; carries where."""

    def __init__(self, role: str, name: str, error: Exception, path: str):
        self.role, self.name, self.error = role, name, error
        # A program's failure (perflab.bench.commands) is not at a line of Python.
        self.location = None if getattr(error, "without_location", False) else _location_in(error, path)
        self.missing = missing_dependency(error)  # a declared optional dependency not installed here
        super().__init__(f"{role} {name!r} raised {type(error).__name__}: {error}")


def _location_in(error: BaseException, path: str) -> str | None:
    """'file:line' of the deepest frame in the benchmark file, else of the deepest frame."""
    frames = traceback.extract_tb(error.__traceback__)
    in_file = [f for f in frames if os.path.abspath(f.filename) == os.path.abspath(path)]
    deepest = (in_file or frames)[-1:]
    return f"{deepest[0].filename}:{deepest[0].lineno}" if deepest else None


def run_packages(job: dict, events: EventStream) -> None:
    """Which distributions, at which versions, provide each of the job's top-level modules.

    Scanning every installed distribution takes ~0.4 s: done once per run and interpreter, not in
    each timing worker (where it was seconds of a short run's budget)."""
    try:
        from importlib.metadata import packages_distributions, version
    except ImportError:  # Python < 3.10
        events.send("packages", modules={})
        return
    distributions = packages_distributions()
    found: dict[str, dict[str, str]] = {}
    for module in job["modules"]:
        for dist in distributions.get(module, []):
            try:
                found.setdefault(module, {})[dist] = version(dist)
            except Exception:
                continue
    events.send("packages", modules=found)


def main() -> int:
    # Keep the protocol on private copies of stdin and stdout; user prints go to stderr, and user
    # code that reads or closes standard input finds /dev/null there, not the parent's commands.
    protocol = os.fdopen(os.dup(1), "w")
    commands = os.fdopen(os.dup(0), "r")
    os.dup2(2, 1)
    with open(os.devnull) as nothing:
        os.dup2(nothing.fileno(), 0)
    sys.stdout = sys.stderr
    events = EventStream(protocol)
    failure = _run_job(commands, events)
    # Before the last event: the parent kills the process group as soon as it has it.
    remove_written_inputs()
    if failure is not None:
        events.send("error", **failure)
        return 1
    events.send("done")
    return 0


def _run_job(commands: TextIO, events: EventStream) -> dict[str, Any] | None:
    """Read the job and run it; the fields of the "error" event when it failed."""
    job: dict = {}
    try:
        job = json.loads(commands.readline())
        sys.path[:0] = job.get("sys_path", [])  # a revision's worktree comes before installed code
        if job["mode"] == "check":
            run_check(job, events)
        elif job["mode"] == "output":
            run_output(job, events)
        elif job["mode"] == "describe":
            run_describe(job, events)
        elif job["mode"] == "packages":
            run_packages(job, events)
        elif job["mode"] == "profile":
            run_profile(job, events, commands)
        elif job["mode"] == "fuzz":
            run_fuzz(job, events)
        elif job["mode"] == "seed":
            run_seed(job, events)
        elif job["mode"] == "count":
            run_count(job, events)
        else:
            run_timing(job, events, commands)
    except BenchmarkFileError as error:
        return {"kind": "file", "message": str(error)}
    except fuzz.FuzzError as error:
        return {"kind": error.kind, "message": str(error)}
    except UserCodeError as error:
        return {
            "kind": error.role,
            "message": str(error),
            "location": error.location,
            "exception": type(error.error).__name__,
            "detail": str(error.error),
            "missing": error.missing,
        }
    except SystemExit as error:  # only user code calls it in here
        return {
            "kind": "exit",
            "location": _location_in(error, job.get("file", "")),
            "message": f"the benchmark called sys.exit({error.code!r}): a case or contender must return, "
            "not end the process",
        }
    return None
