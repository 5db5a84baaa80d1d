"""The wire between perflab and its worker processes: the jobs it sends and the events it reads back.

A job is one JSON line on the worker's standard input (``python -m perflab.bench.worker``); commands
for the jobs that take several ({"do": "warmup" | "value" | "profile" | "exit"}) follow it, one per
line. Events are JSON lines on the worker's standard output, each with an "event" field naming its
kind, the last one "done" or "error". Each value is written as soon as it is measured, so a worker
that is killed half-way still hands over what it measured.

Both sides build and read these dictionaries through the types below, so mypy sees a renamed or
missing field on either side. Every job is built by one constructor here (``check_job`` ...), and
every job may carry "sys_path": directories to import from first, e.g. a revision's worktree.

Jobs (mode: what the worker does; the module that runs it, under perflab.bench.worker):
  check      run the contender on its own copy of the case input and compare its output with the
             reference's, computed in the same worker ("reference") or given pickled and
             base64-encoded ("expected", with "expected_input" and "reference_shares") from a
             worker of another side; also its input after the call (integrity) and whether two
             calls share their output. Events: "work", "check" (with the contender's output pickled
             when "send_output", for the hash-seed check). (checks)
  output     the contender's output and its input after the call, pickled, and whether two calls
             share their outputs, for a check on another side. Events: "work", "output". (checks)
  seed       under another PYTHONHASHSEED than the check jobs, the contender's output on each case
             compared with the one given ("expected": case -> pickled output). Event: "seed". (checks)
  fuzz       equivalence fuzzing: ``examples`` generated inputs (0: none) and stateful call patterns
             ("patterns", None: all). Event: "fuzz"; a strategy that raises is an error of kind
             "strategy". (checks, fuzz)
  describe   the names of the cases and contenders and the reference. Event: "describe". (describe)
  packages   the distributions (name -> version) that provide each top-level module named, as this
             interpreter and "sys_path" see them: once per run, for the modules the timing workers
             imported. Event: "packages". (describe)
  time       set up the contender (pinned to "cpu"), calibrate ("loops" None) and report "ready"
             (the first call's time, the harness floor, the top-level modules imported), then
             answer each command {"do": "warmup"} or {"do": "value"} with one value: the mean time
             per call over "loops" calls (each on its own copy of the input when the benchmark
             declares mutates_input). {"do": "exit"} ends it, after one "integrity" event (the
             output is compared with "reference"'s when given). The parent alternates commands
             between the workers of several contenders, so their values are interleaved in time on
             the same CPU. "ready" and each value carry "background" when the contender leaves work
             running beside the timed thread. (timing)
  profile    set up and calibrate, report "ready" (the pid a sampler attaches to, the interpreter's
             paths), then answer each {"do": "profile"} by calling ``measured_region`` over and over
             for "duration" seconds and replying with the values measured meanwhile; with
             "inprocess" ({"rate", "mode"}) the worker samples itself and the reply carries the
             folded stacks. {"do": "exit"} ends it. (profiling)
  count      for perflab.metrics: warm up ("warmups" calls), then call ``measured_region`` with 0 and
             with "loops" calls, each between two region markers, and report the peak RSS before and
             after and, with "memory", tracemalloc's view of a further "loops" calls. Event: "count".
             (counting)
  allocations  for perflab.profile.allocations: warm up ("warmups" calls), then call
             ``measured_region`` "loops" times (None: calibrated to "value_time" seconds) under
             memray's Tracker (Python and, with "native", C frames; memray imported only here),
             and report per call path the bytes allocated, the allocations, the bytes live at the
             peak and the bytes still held after the calls. Event: "allocations". (allocations)
  reach      for perflab check --affected: every Python function the process runs while it loads
             the file, builds the case's input and the contender and calls the operation "calls"
             times, as the first line of each function's code by file (0: a module's own code,
             run at import); and whether it started a
             program (whose code cannot be seen). Event: "reach". (reach)

Standard library only, and no typing feature newer than Python 3.8: the worker's modules import
these types for mypy only (under ``TYPE_CHECKING``, perflab.bench's docstring), writing its events
as dict literals that mypy checks against them, so a worker does not pay for ``typing``; perflab's
side imports this module at run time.
"""

from __future__ import annotations

from typing import Any, TypedDict, Union

# Required fields in a base class, optional ones in a total=False subclass: the 3.8 way of
# typing.NotRequired.


class _Job(TypedDict):
    mode: str
    file: str


class _OnContender(_Job):
    contender: str
    sys_path: list[str]


class _CheckJob(_OnContender):
    case: str


class CheckJob(_CheckJob, total=False):
    send_output: bool  # send the contender's output, pickled, for the hash-seed check
    reference: str  # same worker: compare with this contender of the file
    expected: str  # another side: the reference's output, pickled (perflab.bench.worker.checks.pickled)
    expected_input: str | None
    reference_shares: bool


class OutputJob(_OnContender):
    case: str


class SeedJob(_OnContender):
    expected: dict[str, str]  # case -> the output of the check job, pickled


class FuzzJob(_OnContender):
    reference: str
    examples: int
    seed: int
    patterns: list[str] | None
    generate_seconds: float | None  # how long generated inputs may go on (None: no limit)


class DescribeJob(_Job):
    sys_path: list[str]


class PackagesJob(TypedDict):
    mode: str
    modules: list[str]
    sys_path: list[str]


class TimeJob(_OnContender):
    case: str
    loops: int | None  # None: calibrate
    cpu: int | None
    value_time: float
    reference: str | None  # in the same file: check the output after the values against it


class InProcessSampling(TypedDict):
    rate: float
    mode: str
    lines: bool  # label frames by the line running (ProfileSettings.lines)


class ProfileJob(_OnContender):
    case: str
    value_time: float
    duration: float
    inprocess: InProcessSampling | None
    cpu: int | None


class CountJob(_OnContender):
    case: str
    loops: int
    warmups: int
    memory: bool


class AllocationsJob(_OnContender):
    case: str
    loops: int | None  # None: calibrate to value_time
    value_time: float
    warmups: int
    native: bool


class ReachJob(_OnContender):
    case: str
    calls: int


# Union, not |: aliases are evaluated when the module is imported, under Python 3.8 too.
Job = Union[  # noqa: UP007
    CheckJob,
    OutputJob,
    SeedJob,
    FuzzJob,
    DescribeJob,
    PackagesJob,
    TimeJob,
    ProfileJob,
    CountJob,
    AllocationsJob,
    ReachJob,
]


class _Command(TypedDict):
    do: str  # "warmup" | "value" | "profile" | "exit"


class Command(_Command, total=False):
    # Of a timing worker's "warmup" or "value": the calls this value makes, instead of the job's
    # calibrated loops (the runner sizes every side's values to one common length, and measures one
    # side at two lengths to see whether the length moves the estimate); the operation's limit still holds.
    loops: int


def check_job(
    file: str,
    contender: str,
    sys_path: list[str],
    case: str,
    send_output: bool,
    reference: str | None = None,
    expected: OutputEvent | None = None,
) -> CheckJob:
    """Check ``contender`` against ``reference`` in one worker, or against ``expected``, the
    reference's "output" event from a worker of another side."""
    job = CheckJob(mode="check", file=file, contender=contender, sys_path=sys_path, case=case)
    if reference is not None:
        job["reference"] = reference
    if expected is not None:
        job["expected"] = expected["pickled"]
        job["expected_input"] = expected["input"]
        job["reference_shares"] = expected["shares"]
    job["send_output"] = send_output
    return job


def output_job(file: str, contender: str, sys_path: list[str], case: str) -> OutputJob:
    return OutputJob(mode="output", file=file, contender=contender, sys_path=sys_path, case=case)


def seed_job(file: str, contender: str, sys_path: list[str], expected: dict[str, str]) -> SeedJob:
    return SeedJob(mode="seed", file=file, contender=contender, sys_path=sys_path, expected=expected)


def fuzz_job(
    file: str,
    contender: str,
    sys_path: list[str],
    reference: str,
    examples: int,
    seed: int,
    patterns: list[str] | None,
    generate_seconds: float | None = None,
) -> FuzzJob:
    return FuzzJob(
        mode="fuzz",
        file=file,
        contender=contender,
        reference=reference,
        examples=examples,
        seed=seed,
        sys_path=sys_path,
        patterns=patterns,
        generate_seconds=generate_seconds,
    )


def describe_job(file: str, sys_path: list[str]) -> DescribeJob:
    return DescribeJob(mode="describe", file=file, sys_path=sys_path)


def packages_job(modules: list[str], sys_path: list[str]) -> PackagesJob:
    return PackagesJob(mode="packages", modules=modules, sys_path=sys_path)


def time_job(
    file: str,
    contender: str,
    sys_path: list[str],
    case: str,
    loops: int | None,
    cpu: int | None,
    value_time: float,
    reference: str | None,
) -> TimeJob:
    return TimeJob(
        mode="time",
        file=file,
        contender=contender,
        sys_path=sys_path,
        case=case,
        loops=loops,
        cpu=cpu,
        value_time=value_time,
        reference=reference,
    )


def profile_job(
    file: str,
    contender: str,
    sys_path: list[str],
    case: str,
    value_time: float,
    duration: float,
    inprocess: InProcessSampling | None,
    cpu: int | None,
) -> ProfileJob:
    return ProfileJob(
        mode="profile",
        file=file,
        case=case,
        contender=contender,
        sys_path=sys_path,
        value_time=value_time,
        duration=duration,
        inprocess=inprocess,
        cpu=cpu,
    )


def count_job(
    file: str, contender: str, sys_path: list[str], case: str, loops: int, warmups: int, memory: bool
) -> CountJob:
    return CountJob(
        mode="count",
        file=file,
        contender=contender,
        sys_path=sys_path,
        case=case,
        loops=loops,
        warmups=warmups,
        memory=memory,
    )


def allocations_job(
    file: str,
    contender: str,
    sys_path: list[str],
    case: str,
    loops: int | None,
    value_time: float,
    warmups: int,
    native: bool,
) -> AllocationsJob:
    return AllocationsJob(
        mode="allocations",
        file=file,
        contender=contender,
        sys_path=sys_path,
        case=case,
        loops=loops,
        value_time=value_time,
        warmups=warmups,
        native=native,
    )


def reach_job(file: str, contender: str, sys_path: list[str], case: str, calls: int) -> ReachJob:
    return ReachJob(mode="reach", file=file, contender=contender, sys_path=sys_path, case=case, calls=calls)


# Events. The fields a job's events carry, as the worker sends them.


class WorkEvent(TypedDict):
    event: str  # "work"
    work: Any  # the case's declared work (perflab.bench.spec.Case.work), JSON


class CheckEvent(TypedDict):
    event: str  # "check"
    equivalent: bool
    difference: str | None
    note: str | None
    comparator: str
    mutation: str | None  # how the contender's input ended unlike the reference's
    shared: str | None  # how two calls' outputs share objects
    output: str | None  # pickled, with "send_output"


class OutputEvent(TypedDict):
    event: str  # "output"
    pickled: str
    input: str | None  # the input after the call, pickled
    shares: bool


class SeedEvent(TypedDict):
    event: str  # "seed"
    differences: dict[str, str | None]  # case -> difference


class FuzzEvent(TypedDict):
    event: str  # "fuzz": the fields of perflab.bench.worker.fuzz.Report
    equivalent: bool
    difference: str | None
    counterexample: str | None
    pattern: str | None
    examples_run: int
    outside_domain: int
    status: str | None
    calls: int
    rejected_compared: int  # inputs the reference rejected on which the contender's errors were compared
    largest_input: int  # items of the largest input compared
    declared_largest: int  # items of the largest declared case input
    unrun_lines: list[int]  # lines of the contender no checked input executed
    kinds: dict[str, int]  # of examples_run, how many were made each way (perflab.bench.worker.fuzz.GENERATED_KINDS)
    domain: str  # what the declared inputs are (perflab.bench.worker.declared_domain)
    outside_differences: int  # generated inputs outside that domain on which the two differed
    outside: str | None  # the first of them, in words
    constants: int  # constants mined from the code of the reference and the contender
    compared: int  # of them, values their comparisons test against (in the bytecode or at run time)
    notes: list[str]


class DescribeEvent(TypedDict):
    event: str  # "describe"
    name: str
    cases: list[str]
    contenders: list[str]
    reference: str
    compares: bool  # False: the benchmark compares no outputs (a pyperf script's)


class PackagesEvent(TypedDict):
    event: str  # "packages"
    modules: dict[str, dict[str, str]]  # module -> distribution -> version


class TimingReadyEvent(TypedDict):
    event: str  # "ready"
    loops: int
    first_call: float
    first_call_overhead: float  # s of the same timing around an empty call (timing_checks.first_call_overhead)
    floor: float | None
    calibration_seconds: float
    background: str | None
    modules: list[str]


class _ValueEvent(TypedDict):
    event: str  # "warmup" | "value"
    value: float  # seconds per call, wall time
    cpu: float  # seconds per call, the timed thread's CPU time (time.thread_time)
    loops: int  # the calls the value made
    background: str | None
    probe: float  # CPU seconds of fixed work just after the value (perflab.bench.worker.speed_probe)


class ValueEvent(_ValueEvent, total=False):
    extra: dict[str, float]  # a command contender's process metrics (perflab.bench.commands)
    # Seconds per call the timed thread was runnable but waiting for a CPU (Linux's schedstat;
    # absent where it cannot be read): what other processes took from it.
    waited: float


class _IntegrityChecks(TypedDict):
    input_changed: str | None
    output_wrong: str | None


class IntegrityChecks(_IntegrityChecks, total=False):
    unchecked: str  # the reference raised: the output could not be checked


class IntegrityEvent(IntegrityChecks):
    event: str  # "integrity"


class ProfileReadyEvent(TypedDict):
    event: str  # "ready"
    loops: int
    pid: int
    paths: dict[str, str]  # sysconfig.get_paths()


class ProfileEvent(TypedDict):
    event: str  # "profile"
    value: float
    values: list[float]
    stacks: list[Any] | None  # [[frames], count] from the in-process sampler


class TracedMemory(TypedDict):
    start: int
    end: int
    peak: int


class CountEvent(TypedDict):
    event: str  # "count"
    loops: int
    peak_rss_before: int
    peak_rss_after: int
    traced: TracedMemory | None


class FrameObjects(TypedDict):
    bytes: int  # of the frame objects memray's profile hook made CPython create, over all the calls
    count: int
    not_subtracted: str | None  # why they are still in the views (None: subtracted)


class AllocationsEvent(TypedDict):
    event: str  # "allocations"
    loops: int
    memray: str  # memray's version
    paths: dict[str, str]  # sysconfig.get_paths()
    # view ("allocated", "allocations", "peak", "held") -> [[frames, outermost first], bytes or count]
    views: dict[str, list[Any]]
    frame_objects: FrameObjects


class ReachEvent(TypedDict):
    event: str  # "reach"
    code: dict[str, list[int]]  # file -> the first lines of the code objects run there (0: the module's own)
    starts_programs: str | None  # the audit event of the first program started (None: none)


class _ErrorEvent(TypedDict):
    event: str  # "error"
    kind: str  # "file", "case", "reference", "contender", "exit", "tool" (not installed), or a fuzzing culprit
    message: str


class ErrorEvent(_ErrorEvent, total=False):
    location: str | None  # file:line in user code
    exception: str  # the user code's exception's type
    detail: str
    missing: str | None  # a declared optional dependency not installed here (perflab.bench.optional)
    skipped: str | None  # why the benchmark itself skips this case (perflab.bench.optional.Skipped)


class DoneEvent(TypedDict):
    event: str  # "done"


Event = Union[  # noqa: UP007 - as Job
    WorkEvent,
    CheckEvent,
    OutputEvent,
    SeedEvent,
    FuzzEvent,
    DescribeEvent,
    PackagesEvent,
    TimingReadyEvent,
    ValueEvent,
    IntegrityEvent,
    ProfileReadyEvent,
    ProfileEvent,
    CountEvent,
    AllocationsEvent,
    ReachEvent,
    ErrorEvent,
    DoneEvent,
]
