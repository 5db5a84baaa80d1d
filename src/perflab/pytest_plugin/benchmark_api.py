"""The ``benchmark`` fixture object: pytest-benchmark's API, timed by perflab's rules.

Accepted as pytest-benchmark documents it: ``benchmark(fn, *args, **kwargs)`` (returns fn's
result; also usable as a decorator), ``benchmark.pedantic(target, args, kwargs, setup, teardown,
rounds, warmup_rounds, iterations)`` with the same validation, ``extra_info``, ``name``, ``group``,
``enabled``/``disabled``, ``stats`` (its ``Metadata``: ``stats.stats.mean``, ``stats["mean"]``,
``stats.get("median")``, ``stats["stats"]``, ``stats.iterations``...). ``benchmark.weave`` is
refused with one line (``WEAVE_REFUSED``). perflab adds:

- ``await benchmark(coroutine_function, *args)`` inside an async test: every call is awaited in
  the running event loop, the loop's own overhead included (it is part of what an async call costs);
- ``benchmark.compare({"a": fa, "b": fb}, *args, compare_outputs="exact")``: outputs checked for
  equivalence first (a difference fails the test, with the first difference), then all contenders
  timed interleaved (A B B A ...) and compared with the first one, with FDR-corrected verdicts.

Every value is the mean time per call over a calibrated number of calls; the statistics are in
perflab.pytest_plugin.sampling.
"""

from __future__ import annotations

import cProfile
import functools
import gc
import inspect
import itertools
import pstats
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from perflab.analysis.estimates import CellEstimates, Comparison, Interval, compare_paired, verdict
from perflab.analysis.intervals import benjamini_hochberg
from perflab.bench.comparators import resolve_comparator
from perflab.bench.worker.region import calibration_steps
from perflab.measure import value_length
from perflab.pytest_plugin import memory_limits
from perflab.pytest_plugin.sampling import BLOCKS, CHECK_EVERY, Sampler, SamplingSettings, blocks_of, estimate

if TYPE_CHECKING:  # memray and the profile's processors come in only when memory is measured
    from perflab.metrics.memory import MemoryUse

REFERENCE_NAME = "benchmark"  # the contender name of a plain benchmark(...) call in perflab's store
COMPARE_WARMUP_ROUNDS = 2


WEAVE_REFUSED = (
    "benchmark.weave / benchmark_weave (pytest-benchmark's aspectlib patching) is not supported by "
    "perflab's plugin: call benchmark(function, *args) on the function to time instead"
)


class FixtureAlreadyUsed(Exception):
    """The fixture times one thing per test (pytest-benchmark's rule; use compare() for several)."""


@dataclass
class Measured:
    """What one contender of one test measured (``benchmark.stats`` after the call)."""

    contender: str
    loops: int
    values: list[float]  # seconds per call, one per value, in the order measured
    warmups: list[float] = field(default_factory=list)
    estimates: CellEstimates | None = None
    cprofile: pstats.Stats | None = None
    memory: MemoryUse | None = None  # --perflab-metric memory (perflab.pytest_plugin.memory_per_call)

    @property
    def stats(self) -> ValueStats:
        """pytest-benchmark's ``benchmark.stats.stats`` (min, max, mean, median, stddev, ...)."""
        return ValueStats(self.values)


class ValueStats:
    """pytest-benchmark's summary fields of a list of values (its ``Stats``), as its docs define them."""

    fields = (
        "min",
        "max",
        "mean",
        "stddev",
        "rounds",
        "median",
        "iqr",
        "q1",
        "q3",
        "iqr_outliers",
        "stddev_outliers",
        "outliers",
        "ld15iqr",
        "hd15iqr",
        "ops",
        "total",
    )

    def __init__(self, data: list[float]) -> None:
        import statistics

        self.data = list(data)
        ordered = sorted(self.data)
        n = len(ordered)
        self.rounds, self.total = n, sum(ordered)
        self.min, self.max = ordered[0], ordered[-1]
        self.mean, self.median = statistics.mean(ordered), statistics.median(ordered)
        self.stddev = statistics.stdev(ordered) if n > 1 else 0.0
        self.q1, self.q3 = (ordered[0], ordered[0]) if n == 1 else _quartiles(ordered)
        self.iqr = self.q3 - self.q1
        low, high = self.q1 - 1.5 * self.iqr, self.q3 + 1.5 * self.iqr
        self.iqr_outliers = sum(1 for v in ordered if v < low or v > high)
        self.stddev_outliers = sum(1 for v in ordered if abs(v - self.mean) > self.stddev)
        self.outliers = f"{self.stddev_outliers};{self.iqr_outliers}"
        within = [v for v in ordered if low <= v <= high]
        self.ld15iqr, self.hd15iqr = within[0], within[-1]
        self.ops = n / self.total if self.total else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.fields}

    def __getitem__(self, key: str) -> Any:  # stats.stats["min"] (pytest-benchmark's Stats has only .min)
        if key not in self.fields and key != "data":
            raise KeyError(key)
        return getattr(self, key)

    def __bool__(self) -> bool:
        return bool(self.data)


class Metadata:
    """pytest-benchmark's ``benchmark.stats`` after the call: the test's names and settings and, in
    ``stats``, the summary of the values. ``metadata[key]`` and ``metadata.get(key)`` read a
    statistic first, then an attribute, as pytest-benchmark's ``Metadata`` does (so
    ``benchmark.stats["mean"]`` and ``benchmark.stats["stats"].median`` both work).
    ``measured`` is perflab's own record: every value, the loop count and the 95% intervals;
    ``memory`` its memory per call with ``--perflab-metric memory`` (None without)."""

    def __init__(self, fixture: BenchmarkFixture, measured: Measured, options: dict[str, Any]) -> None:
        self.name, self.fullname, self.group = fixture.name, fixture.fullname, fixture.group
        self.param, self.params, self.extra_info = fixture.param, fixture.params, fixture.extra_info
        self.iterations = measured.loops  # calls per value, as pytest-benchmark's iterations per round
        self.options = options
        self.stats = measured.stats
        self.measured = measured
        self.memory = measured.memory

    def __bool__(self) -> bool:
        return bool(self.stats)

    def __getitem__(self, key: str) -> Any:  # an unknown key raises AttributeError, as there
        try:
            return getattr(self.stats, key)
        except AttributeError:
            return getattr(self, key)

    def get(self, key: str, default: Any = None) -> Any:
        try:
            return getattr(self.stats, key)
        except AttributeError:
            return getattr(self, key, default)


def _quartiles(ordered: list[float]) -> tuple[float, float]:
    """Quartiles as pytest-benchmark computes them (Wikipedia's methods 2 and 3), so that its JSON
    consumers read the same numbers."""
    import statistics

    n = len(ordered)
    if n % 2 == 0:
        return statistics.median(ordered[: n // 2]), statistics.median(ordered[n // 2 :])
    k, remainder = divmod(n, 4)
    if remainder == 1:
        return (0.25 * ordered[k - 1] + 0.75 * ordered[k], 0.75 * ordered[3 * k] + 0.25 * ordered[3 * k + 1])
    return 0.75 * ordered[k] + 0.25 * ordered[k + 1], 0.25 * ordered[3 * k + 1] + 0.75 * ordered[3 * k + 2]


@dataclass
class ContenderOutcome:
    """One contender of ``benchmark.compare``: its output, its time and how it compares."""

    name: str
    output: Any
    measured: Measured
    comparison: Comparison | None = None  # time / the reference's time (None for the reference)
    p_adjusted: float | None = None
    verdict: str | None = None
    # --perflab-rev: how this revision's output differs from the first revision's (its ratio is then
    # invalid); None: equal, or not compared (Record.unchecked says so).
    difference: str | None = None

    @property
    def ratio(self) -> Interval | None:
        return self.comparison.ratio if self.comparison else None


@dataclass
class Record:
    """Everything the session keeps about one benchmarked test (for the store, JSON and summary)."""

    test_file: str
    name: str  # pytest-benchmark's name (the test's name with parameters)
    fullname: str  # the node id
    group: str | None
    param: str | None
    params: dict | None
    extra_info: dict
    options: dict
    contenders: list[Measured]
    comparisons: list[ContenderOutcome] = field(default_factory=list)  # compare(): all but the reference
    comparator: str | None = None  # compare(): how outputs were compared
    note: str | None = None  # what the summary says under the test's line (memory_limits.timed_under_tracking)
    unchecked: str | None = None  # what the comparisons rest on unchecked, when not compare()'s (report.unchecked)


class BenchmarkFixture:
    """``benchmark`` in a test. One use per test: a call, ``pedantic`` or ``compare``."""

    def __init__(
        self,
        node: Any,
        settings: SamplingSettings,
        record: Callable[[Record], None],
        disabled: bool = False,
        group: str | None = None,
        cprofile: bool = False,
        alpha: float = 0.01,
        min_effect: float = 0.01,
        memory: bool = False,
    ) -> None:
        self.name = node.name
        self.fullname = node.nodeid
        callspec = getattr(node, "callspec", None)
        self.param = callspec.id if callspec else None
        self.params = dict(callspec.params) if callspec else None
        self.group = group
        self.extra_info: dict[str, Any] = {}
        self.disabled = disabled
        self.stats: Metadata | None = None  # after the call, as in pytest-benchmark (None when disabled)
        self.comparison: dict[str, ContenderOutcome] | None = None
        self._node = node
        self._settings = settings
        self._record = record
        self._cprofile = cprofile
        self._alpha, self._min_effect = alpha, min_effect
        self._memory = memory
        self._mode: str | None = None

    @property
    def enabled(self) -> bool:
        return not self.disabled

    def _claim(self, mode: str) -> None:
        if self._mode:
            raise FixtureAlreadyUsed(
                f"the benchmark fixture can only be used once per test; it was used in "
                f"{self._mode} mode (use benchmark.compare for several contenders)"
            )
        self._mode = mode

    # --- benchmark(fn, *args, **kwargs) -------------------------------------------------------

    def __call__(self, function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        self._claim("benchmark(...)")
        if inspect.iscoroutinefunction(function):
            return self._run_async(function, args, kwargs)
        if self.disabled:
            return function(*args, **kwargs)
        call = functools.partial(function, *args, **kwargs) if args or kwargs else function
        sampler = Sampler(self._settings)
        with quiet_interpreter(self._settings.disable_gc):
            while (loops := sampler.next_loops()) is not None:
                sampler.add(timed_calls(call, loops, self._settings.timer))
        measured = self._finish(sampler, call)
        if self._cprofile:
            return _profiled(call, measured, measured.loops)
        return call()

    async def _run_async(self, function: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
        if self.disabled:
            return await function(*args, **kwargs)
        sampler = Sampler(self._settings)
        timer = self._settings.timer
        with quiet_interpreter(self._settings.disable_gc):
            while (loops := sampler.next_loops()) is not None:
                start = timer()
                for _ in itertools.repeat(None, loops):
                    await function(*args, **kwargs)
                sampler.add(timer() - start)
        self._finish(sampler, None, "a coroutine function's calls are not tracked")
        return await function(*args, **kwargs)

    def _finish(self, sampler: Sampler, call: Callable[[], Any] | None, why_not: str = "") -> Measured:
        assert sampler.loops is not None  # sampling is over, so calibration is
        measured = Measured(REFERENCE_NAME, sampler.loops, sampler.values, sampler.warmups, estimate(sampler.values))
        self._measure_memory(measured, call, why_not)
        self._save([measured])
        return measured

    def _measure_memory(self, measured: Measured, call: Callable[[], Any] | None, why_not: str) -> None:
        """``--perflab-metric memory``: the call's memory per call, after its timing (never during it)."""
        if not self._memory or not measured.values:
            return
        from perflab.metrics.memory import MemoryUse
        from perflab.pytest_plugin import memory_per_call

        if call is None:
            measured.memory = MemoryUse(self.name, measured.contender, 0, error=f"memory not measured: {why_not}")
            return
        time_per_call = measured.estimates.median.value if measured.estimates else min(measured.values)
        with quiet_interpreter(disable_gc=False):
            measured.memory = memory_per_call.measure(
                call, time_per_call, self.name, measured.contender, str(self._node.path)
            )

    # --- benchmark.pedantic(...) --------------------------------------------------------------

    def pedantic(
        self,
        target: Callable[..., Any],
        args: tuple | list = (),
        kwargs: dict | None = None,
        setup: Callable[[], Any] | None = None,
        teardown: Callable[..., Any] | None = None,
        rounds: int = 1,
        warmup_rounds: int = 0,
        iterations: int = 1,
    ) -> Any:
        """Exactly ``rounds`` values of ``iterations`` calls each, as pytest-benchmark runs them."""
        self._claim("benchmark.pedantic(...)")
        kwargs = {} if kwargs is None else kwargs
        has_args = bool(args or kwargs)
        for label, value, least in (
            ("iterations", iterations, 1),
            ("rounds", rounds, 1),
            ("warmup_rounds", warmup_rounds, 0),
        ):
            if not isinstance(value, int) or isinstance(value, bool) or value < least:
                raise ValueError(
                    f"Must have {'positive' if least else 'non-negative'} int for `{label}` (got {value!r})."
                )
        if iterations > 1 and setup:
            raise ValueError("Can't use more than 1 `iterations` with a `setup` function.")

        def arguments() -> tuple[tuple | list, dict]:
            if setup:
                given = setup()
                if given:
                    if has_args:
                        raise TypeError("Can't use `args` or `kwargs` if `setup` returns the arguments.")
                    return given
            return args, kwargs

        if self.disabled:
            call_args, call_kwargs = arguments()
            return target(*call_args, **call_kwargs)
        timer, values, result = self._settings.timer, [], None
        for round_number in range(warmup_rounds + rounds):
            call_args, call_kwargs = arguments()
            with quiet_interpreter(self._settings.disable_gc):
                start = timer()
                if iterations == 1:
                    result = target(*call_args, **call_kwargs)
                else:
                    for _ in itertools.repeat(None, iterations):
                        target(*call_args, **call_kwargs)
                elapsed = timer() - start
            if round_number >= warmup_rounds:
                values.append(elapsed / iterations)
            if teardown is not None:
                teardown(*call_args, **call_kwargs)
        if iterations > 1:  # looped: the result comes from one more call, as in pytest-benchmark
            call_args, call_kwargs = arguments()
            result = target(*call_args, **call_kwargs)
            if teardown is not None:
                teardown(*call_args, **call_kwargs)
        measured = Measured(REFERENCE_NAME, iterations, values, [], estimate(values))
        self._measure_memory(
            measured,
            None if setup or teardown else functools.partial(target, *args, **kwargs),
            "benchmark.pedantic with setup or teardown (every call needs them)",
        )
        if self._cprofile:
            call_args, call_kwargs = arguments()
            _profiled(
                functools.partial(target, *call_args, **call_kwargs),
                measured,
                iterations,
                after=(lambda: teardown(*call_args, **call_kwargs)) if teardown else None,
            )
        self._save([measured])
        return result

    # --- benchmark.compare({...}, *args) -------------------------------------------------------

    def compare(
        self, contenders: Mapping[str, Callable[..., Any]], *args: Any, compare_outputs: Any = "exact", **kwargs: Any
    ) -> dict[str, ContenderOutcome]:
        """Time several implementations of one operation, interleaved, against the first one.

        Outputs are compared first (``compare_outputs``: "exact", "json" or a function(reference,
        output), as in a perflab benchmark file); a contender whose output differs fails the test
        before anything is timed. Returns {name: ContenderOutcome}.
        """
        self._claim("benchmark.compare(...)")
        names = _checked_contenders(contenders)
        comparator = resolve_comparator(compare_outputs)
        calls: dict[str, Callable[[], Any]] = {
            name: functools.partial(contenders[name], *args, **kwargs) for name in names
        }
        outputs = {name: calls[name]() for name in names}
        reference = names[0]
        for name in names[1:]:
            outcome = comparator.check(outputs[reference], outputs[name])
            if not outcome.equivalent:
                raise AssertionError(
                    f"benchmark.compare: {name!r} is NOT EQUIVALENT to {reference!r} "
                    f"({comparator.name} comparison): {outcome.difference}"
                )
        if self.disabled:
            return {name: ContenderOutcome(name, outputs[name], Measured(name, 0, [])) for name in names}
        timer = self._settings.timer
        rounds = self._interleaved({name: functools.partial(timed_calls, calls[name], timer=timer) for name in names})
        outcomes = self._compared(names, outputs, rounds)
        for name in names:
            self._measure_memory(outcomes[name].measured, calls[name], "")
        self.comparison = outcomes
        self._save(
            [outcome.measured for outcome in outcomes.values()], [outcomes[name] for name in names[1:]], comparator.name
        )
        return outcomes

    def revisions(
        self,
        timed: dict[str, Callable[[int], float]],
        comparator: str | None,
        differences: Mapping[str, str],
        unchecked: str | None = None,
    ) -> dict[str, ContenderOutcome]:
        """``--perflab-rev``: this test run on each revision's code, ``timed[revision](loops)`` the
        seconds of ``loops`` calls timed by that revision's own process
        (perflab.pytest_plugin.revisions), interleaved and compared with the first revision as
        ``compare`` does. The outputs were compared there, by ``comparator`` (None: they could not
        be, for the reason ``unchecked`` gives); ``differences``: the revisions whose output differs
        from the first's, and how (their ratios are invalid)."""
        self._claim("--perflab-rev")
        names = list(timed)
        outcomes = self._compared(names, dict.fromkeys(names), self._interleaved(timed))
        for name, difference in differences.items():
            outcomes[name].difference = difference
        self.comparison = outcomes
        self._save(
            [outcome.measured for outcome in outcomes.values()],
            [outcomes[name] for name in names[1:]],
            comparator,
            unchecked,
        )
        return outcomes

    def _interleaved(self, timed: dict[str, Callable[[int], float]]) -> dict[str, tuple[int, list[float]]]:
        """Calibrate each contender, then one value of each per round, order reversed every round;
        ``timed[name](loops)``: the seconds ``loops`` calls of that contender take."""
        settings, names = self._settings, list(timed)
        values: dict[str, list[float]] = {name: [] for name in names}
        with quiet_interpreter(settings.disable_gc):
            loops = {name: _calibrate(timed[name], settings) for name in names}
            started = time.monotonic()
            round_number = 0
            while True:
                order = names if round_number % 2 == 0 else names[::-1]
                for name in order:
                    values[name].append(timed[name](loops[name]) / loops[name])
                round_number += 1
                if round_number == COMPARE_WARMUP_ROUNDS:
                    # Re-sized from the warmups, so that every contender's values last one common
                    # length (the longest call of any, at least): values of different lengths are
                    # not hit alike by other processes' time slices (perflab.measure.value_length).
                    per_call = {name: min(values[name]) for name in names}
                    common = value_length.common_length(settings.value_time, per_call)
                    loops = {name: value_length.loops_for(common, per_call[name]) for name in names}
                    values = {name: [] for name in names}
                measured = round_number - COMPARE_WARMUP_ROUNDS
                if measured < max(settings.min_rounds, 2):
                    continue
                if time.monotonic() - started >= settings.max_time * len(names):
                    break
                if (
                    measured % CHECK_EVERY == 0
                    and measured >= BLOCKS
                    and all(
                        _paired(values[names[0]], values[name]).ratio.relative_half_width <= settings.precision
                        for name in names[1:]
                    )
                ):
                    break
        return {name: (loops[name], values[name]) for name in names}

    def _compared(
        self, names: list[str], outputs: dict[str, Any], rounds: dict[str, tuple[int, list[float]]]
    ) -> dict[str, ContenderOutcome]:
        outcomes = {
            name: ContenderOutcome(name, outputs[name], Measured(name, loops, values, [], estimate(values)))
            for name, (loops, values) in rounds.items()
        }
        reference = rounds[names[0]][1]
        paired = [_paired(reference, rounds[name][1]) for name in names[1:]]
        adjusted = benjamini_hochberg([comparison.p_value for comparison in paired])
        for name, comparison, p_adjusted in zip(names[1:], paired, adjusted):
            outcome = outcomes[name]
            outcome.comparison, outcome.p_adjusted = comparison, p_adjusted
            outcome.verdict = verdict(comparison.ratio.value, p_adjusted, self._alpha, self._min_effect)
        return outcomes

    def weave(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(WEAVE_REFUSED)

    def _save(
        self,
        measured: list[Measured],
        comparisons: Sequence[ContenderOutcome] = (),
        comparator: str | None = None,
        unchecked: str | None = None,
    ) -> None:
        """Record the test for the session, and make the reference's ``benchmark.stats``."""
        options = {
            "max_time": self._settings.max_time,
            "min_rounds": self._settings.min_rounds,
            "precision": self._settings.precision,
            "value_time": self._settings.value_time,
            "disable_gc": self._settings.disable_gc,
            "warmup": self._settings.warmups,
            "timer": _callable_name(self._settings.timer),
            "timing": "in-process",
            "min_effect": self._min_effect,  # the verdicts' minimum effect (memory verdicts read it from the run)
            "alpha": self._alpha,  # and their false discovery rate: with both, every output says why none
        }
        self.stats = Metadata(self, measured[0], options)
        if len(measured) == 1 and measured[0].memory is not None:  # where pytest-benchmark users keep figures
            from perflab.pytest_plugin.memory_per_call import as_json

            self.extra_info.setdefault("memory", as_json(measured[0].memory))
        self._record(
            Record(
                str(self._node.path),
                self.name,
                self.fullname,
                self.group,
                self.param,
                self.params,
                self.extra_info,
                options,
                measured,
                list(comparisons),
                comparator,
                memory_limits.timed_under_tracking(self._node),
                unchecked,
            )
        )


def _checked_contenders(contenders: Mapping[str, Callable[..., Any]]) -> list[str]:
    if not isinstance(contenders, Mapping) or len(contenders) < 2:
        raise TypeError("benchmark.compare needs a dict of two or more {name: function}, the reference first")
    for name, function in contenders.items():
        if not isinstance(name, str) or not name:
            raise TypeError(f"benchmark.compare: contender names must be non-empty strings (got {name!r})")
        if not callable(function):
            raise TypeError(f"benchmark.compare: contender {name!r} is not callable")
        if inspect.iscoroutinefunction(function):
            raise TypeError(
                f"benchmark.compare: contender {name!r} is a coroutine function; compare times "
                "plain functions (time a coroutine with `await benchmark(fn)`)"
            )
    return list(contenders)


def _paired(reference: list[float], contender: list[float]) -> Comparison:
    """The ratio contender/reference with blocks of consecutive rounds as the paired units."""
    return compare_paired(dict(enumerate(blocks_of(reference))), dict(enumerate(blocks_of(contender))))


def _calibrate(timed: Callable[[int], float], settings: SamplingSettings) -> int:
    steps = calibration_steps(settings.value_time)
    loops = next(steps)
    try:
        while True:
            loops = steps.send(timed(loops))
    except StopIteration as done:
        return done.value


def timed_calls(call: Callable[[], Any], loops: int, timer: Callable[[], float]) -> float:
    """Seconds that ``loops`` calls take (the calls are the only thing inside the timed region)."""
    start = timer()
    for _ in itertools.repeat(None, loops):
        call()
    return timer() - start


def _profiled(call: Callable[[], Any], measured: Measured, loops: int, after: Callable[[], Any] | None = None) -> Any:
    """``@pytest.mark.benchmark(cprofile=True)``: one more value's worth of calls under cProfile,
    after timing (never during it); the statistics go to the JSON's "cprofile" list."""
    profile = cProfile.Profile()
    result = None
    for _ in range(loops if loops > 1 else 1):
        result = profile.runcall(call)
        if after is not None:
            after()
    measured.cprofile = pstats.Stats(profile)
    return result


@contextmanager
def quiet_interpreter(disable_gc: bool) -> Iterator[None]:
    """No tracer or profiler (coverage.py, debuggers) while timing, and the collector off if asked."""
    tracer, profiler, collecting = sys.gettrace(), sys.getprofile(), gc.isenabled()
    sys.settrace(None)
    sys.setprofile(None)
    if disable_gc:
        gc.disable()
    try:
        yield
    finally:
        sys.settrace(tracer)
        sys.setprofile(profiler)
        if collecting:
            gc.enable()


def _callable_name(function: Callable[..., Any]) -> str:
    module = getattr(function, "__module__", None)
    name = getattr(function, "__qualname__", None) or repr(function)
    return f"{module}.{name}" if module else name
