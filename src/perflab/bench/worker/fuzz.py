"""Equivalence fuzzing, inside the worker: generated inputs and stateful call patterns.

The declared cases check one call on a few inputs. A broken optimization often passes that: a
cache keyed by ``id()`` answers correctly the first time, a float formatter differs only on NaN.
This module runs in the worker process where the benchmark is loaded and compares the
contender's output with the reference's, through the benchmark's comparator, in two phases:

1. **Generated inputs** (Hypothesis): the benchmark's ``@bench.strategy`` or a default of JSON-like
   values, for a bounded number of examples with a fixed seed; the first difference is shrunk to
   a smallest counterexample. Every object handed to the contender stays alive for the whole job,
   so ids are never reused here (that is pattern "id-reuse"'s job) and a counterexample does not
   depend on which objects happened to be freed. A difference that a freshly set-up contender
   does not reproduce is reported as pattern "state".
2. **Stateful patterns**, on the declared case inputs and a few generated ones:
   - "in-turn": each input once, one after the other (the declared-case check runs each case
     in a fresh process; here they share one).
   - "mutated": one object is called, mutated in place (an item replaced, one added, one
     removed), and called again after each change. Only for dict and list inputs, which this
     module knows how to mutate; for other inputs the pattern is skipped, with a note.
   - "interleaved": x, y, x, y, x, y on the same two objects.
   - "id-reuse": fresh equal copies of x and of a variant x' of x (same type and size, one item
     changed) created and dropped in turn (x, x', x', x, twice), so that CPython hands their ids
     out again: a cache keyed by id() answers with another object's output. Runs last because
     it is the only pattern that frees what the contender saw.

Each call gets its own copy of the input, so what one call does to its argument cannot reach
the other; after a call on a fresh copy, the contender's input must have ended as the
reference's did (perflab.bench.worker.integrity), else the verdict is "mutates input". An input on which the
reference raises is outside the operation's domain: the contender must raise a related exception
there too (or any, or nothing is asked, by the benchmark's ``errors``). Benchmarks that mutate
their input on purpose skip "mutated" and "interleaved", which call one object repeatedly.
Without a ``@bench.strategy``, inputs are derived from the declared cases' values
(perflab.bench.worker.derived_strategies), a few of them invalid on purpose.

Standard library only at import time: Hypothesis is imported when generated inputs are asked
for, and its absence is a note, not a failure (workers may run under another interpreter).
"""

from __future__ import annotations

import copy
import itertools
import os
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from perflab.bench.arrays import is_array
from perflab.bench.comparators import Comparator, ExactComparator
from perflab.bench.plain_objects import written
from perflab.bench.worker import (
    boundary_values,
    code_constants,
    contender_lines,
    declared_domain,
    declared_variants,
    derived_strategies,
    integrity,
    rejected_inputs,
    reordered_inputs,
    smaller_inputs,
)
from perflab.bench.worker.copies import fresh_copy, variant

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: see perflab.bench's docstring
if TYPE_CHECKING:
    from typing import Any

PATTERNS = {
    "in-turn": "each input called once, in turn, in one process",
    "mutated": "the input changed in place by perflab between calls (as a caller may)",
    "interleaved": "calls interleaved with different inputs",
    "id-reuse": "equal copies created and dropped in turn (ids reused)",
    "state": "state kept between calls (generated inputs)",  # a fresh set-up agrees
    "overwritten": "an earlier output changed by a later call",  # checked during "in-turn"
}
STATEFUL_PATTERNS = ("in-turn", "mutated", "interleaved", "id-reuse")  # in the order they run
# How a generated input was made, in the evidence: drawn from the strategy (or derived from the
# declared cases), a declared input changed at its full size, reordered, a near-miss, changed at
# its boundaries (perflab.bench.worker.boundary_values), built around a constant of the code
# (perflab.bench.worker.code_constants), or a list passed as a tuple or an iterator.
DRAWN, FULL_SIZE, REORDERED, NEAR_MISS = "drawn", "declared at full size", "reordered", "near-miss"
BOUNDARY, NEAR_CONSTANT, ANOTHER_KIND = "at a boundary", "near a code constant", "a list as another kind"
GENERATED_KINDS = (DRAWN, FULL_SIZE, REORDERED, NEAR_MISS, BOUNDARY, NEAR_CONSTANT, ANOTHER_KIND)
_REPR_LIMIT = 300  # characters of an input shown in a counterexample
_STATEFUL_GENERATED = 4  # generated inputs added to the declared ones for the stateful patterns
_INTERLEAVED_PAIRS = 3
_PATTERN_INPUTS = 6  # inputs the mutated, interleaved and id-reuse patterns call repeatedly
_QUICK_CHECK = 0.05  # seconds: inputs slower to check than this are left to "in-turn"
_ID_REUSE_ROUNDS = 2
_FULL_SIZE_ONE_IN = 4  # one generated input in this many is a declared one changed at full size
_NEAR_ONE_IN = 5  # one generated input in this many is changed a little (perflab.bench.worker.rejected_inputs)
_REORDER_ONE_IN = (
    4  # one generated sequence of like items in this many is reordered (perflab.bench.worker.reordered_inputs)
)
_TARGETED_CHECKS = 120  # inputs checked at boundaries and around constants, after the generated ones
_TARGETED_SOURCES = 6  # generated inputs they are made from, besides the small declared ones
_TARGETED_LARGEST = 1000  # items of a declared input they are made from (each variant is a copy)
_ERROR_CALLS = 2  # calls on each input the reference rejects: a cache of failures answers the second


class FuzzError(Exception):
    """Fuzzing cannot proceed (e.g. the benchmark's strategy raised); ``kind`` names the culprit."""

    def __init__(self, kind: str, message: str):
        self.kind = kind
        super().__init__(message)


@dataclass
class Report:
    """What the worker sends back as its "fuzz" event."""

    equivalent: bool = True
    difference: str | None = None
    counterexample: str | None = None
    pattern: str | None = None  # None: a generated input; else a key of PATTERNS
    examples_run: int = 0  # generated inputs compared (inside the reference's domain)
    outside_domain: int = 0  # generated inputs on which the reference raised
    status: str | None = None  # with equivalent=False: "mutates input", else not equivalent
    calls: int = 0  # contender calls made by the stateful patterns
    rejected_compared: int = 0  # inputs the reference rejected on which the contender's errors were compared
    largest_input: int = 0  # items (characters, keys) of the largest input compared
    declared_largest: int = 0  # items of the largest declared case input
    unrun_lines: list[int] = field(default_factory=list)  # lines of the contender no checked input executed
    # Of examples_run, how each generated input was made (GENERATED_KINDS): what "equivalent" rests on.
    kinds: dict[str, int] = field(default_factory=dict)
    domain: str = ""  # what the declared inputs are (perflab.bench.worker.declared_domain)
    outside_differences: int = 0  # generated inputs outside that domain on which the two differed
    outside: str | None = None  # the first of them: why outside, the difference, the counterexample
    constants: int = 0  # constants mined from the code of the reference and the contender
    compared: int = 0  # of them, values their comparisons test against (in the bytecode or at run time)
    notes: list[str] = field(default_factory=list)

    def to_event(self) -> dict[str, Any]:
        return asdict(self)


class _OutOfTime(BaseException):
    """Generated inputs past their deadline: not an Exception, so that Hypothesis lets it through
    at once instead of taking it for a failure to shrink."""


class _Different(Exception):
    """Raised inside the Hypothesis test so that it shrinks the input."""


class _OutsideDomain(Exception):
    """The reference raised on this input (and the contender's behaviour there was acceptable)."""


class _ErrorBehaviour(Exception):
    """The reference raised on this input and the contender did not fail alike."""


def run(
    comparator: Comparator,
    reference: Callable[[Any], Any],
    build_contender: Callable[[], Callable],
    rebuildable: bool,
    declared: dict[str, Any],
    strategy: Callable[[Any], Any] | None,
    examples: int,
    seed: int,
    path: str,
    patterns: list[str] | None = None,
    mutates_input: bool = False,
    errors: str = integrity.ERRORS_SAME,
    generate_seconds: float | None = None,
) -> Report:
    """Fuzz the contender against the reference; the first difference found ends the job.

    ``build_contender`` sets the contender up (again, when ``rebuildable``); ``declared`` maps case
    names to their inputs; ``strategy`` is the benchmark's ``@bench.strategy`` function, if any;
    ``examples`` = 0 skips generated inputs; ``patterns``: the stateful patterns to run (default
    all of STATEFUL_PATTERNS), e.g. one at a time to see which of them catch a contender.
    ``mutates_input`` and ``errors``: the benchmark's declarations (perflab.bench.spec).
    ``generate_seconds``: how long generated inputs may go on (fuzzing's share of --max-time);
    past it no more are drawn, and the report says how many were checked.
    """
    selected = STATEFUL_PATTERNS if patterns is None else patterns
    fuzzer = _Fuzzer(comparator, reference, build_contender, rebuildable, path, mutates_input, errors)
    if generate_seconds is not None:
        fuzzer.generate_until = time.monotonic() + generate_seconds
    fuzzer.declared = declared
    fuzzer.domain = declared_domain.Domain(list(declared.values()), fuzzer.named_bound)
    fuzzer.report.domain = fuzzer.domain.describe()
    repeating = [name for name in ("mutated", "interleaved") if name in selected]
    if mutates_input and repeating:  # they call one object repeatedly: it changes by design
        selected = [name for name in selected if name not in repeating]
        fuzzer.note(f"patterns {' and '.join(repeating)} skipped: the benchmark declares mutates_input=True")
    inputs = [(f"case {name}", value) for name, value in declared.items()]
    fuzzer.report.declared_largest = max((_size(value) for value in declared.values()), default=0)
    try:
        return _search(fuzzer, selected, inputs, strategy, examples, seed)
    finally:
        fuzzer.report.unrun_lines = fuzzer.lines.unrun()
        fuzzer.lines.stop()


def _search(
    fuzzer: _Fuzzer, selected: Any, inputs: list[tuple[str, Any]], strategy: Callable | None, examples: int, seed: int
) -> Report:
    """Generated inputs, then the stateful patterns; the first difference ends the search."""
    generated: list[Any] = []
    if examples > 0:
        finding = (
            fuzzer.generated_inputs(strategy, examples, seed, generated)
            or fuzzer.targeted(generated)
            or fuzzer.outside_finding()
        )
        if finding:
            return finding
    inputs += [(f"generated #{n}", value) for n, value in enumerate(_pick_generated(generated), 1)]
    finding = fuzzer.in_turn(inputs, report="in-turn" in selected)  # also times each input's check
    if finding:
        return fuzzer.shrink(fuzzer.in_turn, inputs)
    quickest = fuzzer.quickest(inputs)
    for name, pattern in (
        ("mutated", fuzzer.mutated),
        ("interleaved", fuzzer.interleaved),
        ("id-reuse", fuzzer.id_reuse),
    ):
        finding = pattern(quickest) if name in selected else None
        if finding:
            return fuzzer.shrink(pattern, quickest)
    return fuzzer.report


class _Fuzzer:
    def __init__(
        self,
        comparator: Comparator,
        reference: Callable,
        build_contender: Callable,
        rebuildable: bool,
        path: str,
        mutates_input: bool,
        errors: str,
    ):
        self.comparator, self.reference, self.path = comparator, reference, path
        self.mutates_input, self.errors = mutates_input, errors
        self.declared: dict[str, Any] = {}  # case name -> input: what derived strategies start from
        self.build_contender, self.rebuildable = build_contender, rebuildable
        self.report = Report()
        built = build_contender()
        self.constants = code_constants.mined(reference, built)
        self.report.constants = self.constants.count()
        self.report.compared = self.constants.compared
        # The integers the reference's own code names widen the domain (a checksum modulo 2**64).
        self.named_bound = code_constants.mined(reference).largest_integer()
        self.domain = declared_domain.Domain()
        self.strategy_declared = False
        # The first generated input outside the domain on which the two differed: (input,
        # difference, status, near-miss, the reference raised).
        self.outside_first: tuple[Any, str, str | None, bool, bool] | None = None
        self.lines = contender_lines.LineRecorder(built)
        self.contender: Callable = self.lines
        self.generate_until: float | None = None  # time.monotonic() past which no input is generated
        self.out_of_time = False  # generated inputs stopped there
        self.alive: list[Any] = []  # everything the contender saw: its ids stay taken
        self.check_seconds: dict[int, float] = {}  # one check (both calls, comparison) per input position
        self.last_output: Any = None  # the contender's output of the last call compared
        self.held = _HeldOutputs()
        # How the reference changed a generated input, when mutates_input is not declared: then
        # outputs alone were compared (a contender may leave its input alone), and the note says so.
        self.reference_changed: str | None = None

    # --- the primitives: one reference output, one contender call compared with it ----------

    def keep(self, value: Any) -> Any:
        self.alive.append(value)
        return value

    def expected(self, value: Any) -> Any:
        """The reference's output on a copy of ``value``; _OutsideDomain if it raises."""
        return self._reference_call(value)[0]

    def _reference_call(self, value: Any) -> tuple[Any, Any]:
        """(output, its input after the call) of the reference on a copy of ``value``."""
        argument = self.keep(fresh_copy(value))
        try:
            return self.reference(argument), argument
        except Exception as error:
            raise _OutsideDomain(f"{type(error).__name__}: {error}") from error

    def check_fresh(
        self, value: Any, contender: Callable | None = None, near: bool = False, ignore_errors: bool = False
    ) -> tuple[str | None, str | None]:
        """(status, difference) of the contender against the reference, each on its own fresh copy
        of ``value`` (None, None when they agree). Raises _OutsideDomain where the reference
        raises and the contender fails acceptably, _ErrorBehaviour where it does not. ``near``:
        ``value`` is a near-miss of a generated input (perflab.bench.worker.rejected_inputs),
        perhaps outside what the strategy means to generate: there the contender must reject
        what the reference rejects, with any exception. So too on None or an empty collection of
        items (_nothing): the edge every loop meets first, where which exception comes out says
        how the code first touches the missing item (``points[0]``: IndexError; ``zip(*points)``
        unpacked: ValueError; a mean: ZeroDivisionError; None: TypeError, unless a guard raises
        ValueError first), not a contract callers catch; two correct rewrites differ so, and
        were flagged NOT EQUIVALENT. ``ignore_errors``: where the reference raises, nothing is asked
        (an input of another kind, compared only where the reference takes it)."""
        try:
            expected, reference_input = self._reference_call(value)
        except _OutsideDomain as outside:
            if outside.__cause__ is not None:  # the reference's own exception
                incidental = near or _nothing(value)
                policy = integrity.ERRORS_ANY if incidental and self.errors != integrity.ERRORS_IGNORE else self.errors
                policy = integrity.ERRORS_IGNORE if ignore_errors else policy
                self._check_error_behaviour(outside.__cause__, value, contender, policy)
            raise
        argument = self.keep(fresh_copy(value))
        self.report.largest_input = max(self.report.largest_input, _size(value))
        difference = self.difference(expected, argument, contender)
        if difference:
            return None, difference
        self.held.hold(expected, self.last_output)
        mutation = integrity.mutation(value, reference_input, value, argument, self.mutates_input)
        if not self.mutates_input and self.reference_changed is None:
            self.reference_changed = integrity.changed(value, reference_input)
        return (integrity.MUTATES_INPUT, mutation) if mutation else (None, None)

    def _check_error_behaviour(
        self, reference_error: BaseException, value: Any, contender: Callable | None, policy: str
    ) -> None:
        if policy == integrity.ERRORS_IGNORE:
            return
        self.report.rejected_compared += 1
        for call in range(1, _ERROR_CALLS + 1):
            try:
                (contender or self.contender)(self.keep(fresh_copy(value)))
                raised = None
            except Exception as error:
                raised = error
            difference = integrity.error_difference(reference_error, raised, policy)
            if difference:
                raise _ErrorBehaviour(difference if call == 1 else f"on a second call on an equal input: {difference}")

    def difference(self, expected: Any, argument: Any, contender: Callable | None = None) -> str | None:
        """How the contender's output on ``argument`` differs from ``expected``, or None."""
        try:
            actual = self.last_output = (contender or self.contender)(argument)
        except Exception as error:
            return f"the contender raised {type(error).__name__}: {error} (the reference returned a value)"
        try:
            outcome = self.comparator.check(expected, actual)
        except Exception as error:  # a user comparator choking on a malformed output
            return f"comparator {self.comparator.name!r} raised {type(error).__name__}: {error}"
        return None if outcome.equivalent else outcome.difference

    def found(self, difference: str, counterexample: str, pattern: str | None, status: str | None = None) -> Report:
        self.report.equivalent, self.report.status = False, status
        self.report.difference, self.report.counterexample, self.report.pattern = (difference, counterexample, pattern)
        return self.report

    def shrink(
        self, pattern: Callable[[list[tuple[str, Any]]], Report | None], inputs: list[tuple[str, Any]]
    ) -> Report:
        """The report of ``pattern``, which found a difference on ``inputs``, run again on the inputs
        cut to their first 1, 2, 4, ... items: the first size that still shows a difference gives
        the counterexample (a stateful pattern's input is used as it is, not shrunk by Hypothesis)."""
        largest = max((_size(value) for _, value in inputs), default=0)
        size, notes = 1, list(self.report.notes)
        while size < largest:
            smaller = [
                (f"{label}, first {size} items" if _size(v) > size else label, _cut(v, size)) for label, v in inputs
            ]
            found = pattern(smaller)
            self.report.notes = list(notes)  # what the reruns noted is about them, not the finding
            if found:
                break
            size *= 2
        return self.report

    def note(self, text: str) -> None:
        self.report.notes.append(text)

    # --- phase 1: generated inputs -------------------------------------------------------------

    def generated_inputs(
        self, strategy_function: Callable | None, examples: int, seed: int, accepted: list[Any]
    ) -> Report | None:
        try:
            import hypothesis
            from hypothesis import strategies as st
        except ImportError:
            self.note(f"generated inputs skipped: hypothesis not installed for {sys.executable}")
            return None
        # Hypothesis caches (e.g. Unicode tables) in ./.hypothesis by default: not in the user's project.
        hypothesis.configuration.set_hypothesis_home_dir(_cache_directory() / "hypothesis")
        _ignore_perflabs_constants()
        strategy = self._strategy(st, strategy_function)
        self.strategy_declared = strategy_function is not None
        if self.strategy_declared:
            self.report.domain = "what @bench.strategy draws, and the declared cases"
            self.domain.drawn = True
        around = self._around_declared(st)
        failures: list[tuple[Any, str, str | None, bool]] = []  # input, difference, status, near-miss
        rejections: list[str] = []
        strategy_errors: list[str] = []

        @hypothesis.settings(
            max_examples=examples,
            database=None,
            deadline=None,
            suppress_health_check=list(hypothesis.HealthCheck),
            phases=[hypothesis.Phase.explicit, hypothesis.Phase.generate, hypothesis.Phase.shrink],
            report_multiple_bugs=False,
            verbosity=hypothesis.Verbosity.quiet,
            print_blob=False,
        )
        @hypothesis.seed(seed)
        @hypothesis.given(st.data())
        def same_output(data):
            full_size = around is not None and data.draw(derived_strategies.one_in(st, _FULL_SIZE_ONE_IN))
            kind = FULL_SIZE if full_size else DRAWN
            try:
                value = data.draw(around if full_size else strategy)
            except hypothesis.errors.HypothesisException:
                raise
            except Exception as error:
                strategy_errors.append(f"{type(error).__name__}: {error}")
                raise
            if self.strategy_declared and kind == DRAWN:  # the strategy is the domain
                self.domain.add(value)
            orders = reordered_inputs.reorderings(value)
            if orders and data.draw(derived_strategies.one_in(st, _REORDER_ONE_IN)):
                value, kind = data.draw(st.sampled_from(orders)), REORDERED
            variants = rejected_inputs.near_variants(value)
            near = bool(variants) and data.draw(derived_strategies.one_in(st, _NEAR_ONE_IN))
            if near:
                value, kind = data.draw(st.sampled_from(variants)), NEAR_MISS
            # Past the deadline: after this input's draws (Hypothesis holds a prefix of draws to
            # the same draws after it), unchecked, out of the search at once; never while a
            # difference found is being shrunk.
            if self.generate_until is not None and time.monotonic() >= self.generate_until and not failures:
                raise _OutOfTime
            if not compare(value, kind, near):
                hypothesis.reject()
            swapped = reordered_inputs.reversed_arguments(value)
            if swapped is not None:
                compare(swapped, REORDERED, near)

        def compare(value: Any, kind: str, near: bool) -> bool:
            """Check ``value``: False where the reference rejects it and the contender failed
            alike; _Different (for Hypothesis to shrink) where they differ."""
            self.keep(value)
            try:
                status, difference = self.check_fresh(value, near=near)
            except _OutsideDomain as error:
                rejections.append(str(error))
                return False
            except _ErrorBehaviour as error:
                if self._set_aside(value, str(error), None, near, True):
                    return False
                failures.append((value, str(error), None, near))
                raise _Different(str(error)) from None
            if difference and self._set_aside(value, difference, status, near, False):
                return False
            self.report.examples_run += 1
            self.report.kinds[kind] = self.report.kinds.get(kind, 0) + 1
            if self._outside(value) is None:  # the stateful patterns call these again and change them
                accepted.append(value)
            if difference:
                failures.append((value, difference, status, near))
                raise _Different(difference)
            return True

        try:
            same_output()
        except _OutOfTime:
            self.out_of_time = True
        except Exception as error:
            if strategy_errors or not (failures or isinstance(error, hypothesis.errors.Unsatisfiable)):
                # e.g. a function inside st.builds raised, or InvalidArgument for bad bounds
                detail = strategy_errors[-1] if strategy_errors else f"{type(error).__name__}: {error}"
                raise FuzzError(
                    "strategy", _one_line(f"{self.path}: the input strategy raised while generating: {detail}")
                ) from None
            if isinstance(error, hypothesis.errors.Unsatisfiable):
                self.note(
                    f"generated inputs skipped: the reference raised on every one of them "
                    f"(e.g. {rejections[0] if rejections else '?'}); declare inputs with "
                    "@bench.strategy or opt out with Benchmark(..., fuzz=False)"
                )
                return None
            value, difference, status, near = failures[-1]  # the last failure is the shrunk one Hypothesis replayed
            if isinstance(error, hypothesis.errors.Flaky):
                return self.found(
                    f"{difference} (not reproducible on its own: depends on earlier calls)",
                    _short(value),
                    "state",
                    status,
                )
            value, difference, status = self._made_smaller(value, difference, status, near)
            return self.found(difference, _short(value), self._state_or_none(value), status)
        if self.out_of_time:
            self.note(
                f"generated inputs stopped after {self.report.examples_run} of {examples}: fuzzing's "
                "share of the time budget ran out (raise --max-time for more)"
            )
        self.report.outside_domain = len(rejections)
        total = self.report.examples_run + len(rejections)
        if rejections:
            self.note(
                f"{self.report.examples_run} of {total} generated inputs were inside the reference's "
                f"domain; {len(rejections)} made it raise (e.g. {rejections[0]})"
                + (", and the contender failed alike" if self.errors != integrity.ERRORS_IGNORE else "")
            )
        if not rejections and self.errors != integrity.ERRORS_IGNORE:
            self.note(
                f"warning: the reference rejected none of the {total} generated inputs, so error behaviour "
                "was never compared; let @bench.strategy generate invalid inputs too"
            )
        if self.reference_changed:
            self.note(
                f"warning: the reference changes its input ({self.reference_changed}), and mutates_input=True "
                "is not declared: outputs alone were compared, not what each leaves in its input; declare "
                "it if changing the input is the operation"
            )
        if total and self.report.examples_run < total / 2:
            self.note(
                f"warning: under half of the generated inputs ({self.report.examples_run}/{total}) were "
                "inside the reference's domain; declare inputs that fit the operation with @bench.strategy"
            )
        return None

    # --- phase 1b: inputs aimed where random draws do not go ----------------------------------

    def targeted(self, generated: list[Any]) -> Report | None:
        """Each small declared input and a few generated ones changed at their boundaries
        (perflab.bench.worker.boundary_values), built around the constants of the code
        (perflab.bench.worker.code_constants), and a list passed as a tuple or an iterator: taken in turn from
        each input and each kind, up to _TARGETED_CHECKS checks. Drawn by Hypothesis as one rare
        branch among others, they came a few times in a hundred inputs; here every kind is tried."""
        small = [value for value in self.declared.values() if _size(value) <= _TARGETED_LARGEST]
        sources = small + _spread(generated, _TARGETED_SOURCES)
        self._record_comparisons(sources)
        queues = [
            [(kind, value) for value in made]
            for source in sources
            for kind, made in (
                (BOUNDARY, boundary_values.boundaries(source, self.domain)),
                (NEAR_CONSTANT, code_constants.around(source, self.constants)),
                (ANOTHER_KIND, boundary_values.other_kinds(source)),
            )
            if made
        ]
        taken = itertools.islice(
            (entry for turn in itertools.zip_longest(*queues) for entry in turn if entry), _TARGETED_CHECKS
        )
        for kind, value in taken:
            self.keep(value)
            raised = False
            try:
                status, difference = self.check_fresh(value, ignore_errors=kind == ANOTHER_KIND)
            except _OutsideDomain:  # rejected alike (another kind the reference refuses: never asked for)
                continue
            except _ErrorBehaviour as error:
                status, difference, raised = None, str(error), True
            if not difference:
                self.report.examples_run += 1
                self.report.kinds[kind] = self.report.kinds.get(kind, 0) + 1
                continue
            if self._set_aside(value, difference, status, False, raised):
                continue
            value, difference, status = self._made_smaller(value, difference, status, False)
            return self.found(difference, _short(value), self._state_or_none(value), status)
        return None

    def _record_comparisons(self, sources: list[Any]) -> None:
        """Add to the constants the values the reference's and the contender's comparisons met at
        run time on a few of ``sources`` (perflab.bench.worker.code_constants). The contender is the
        one set up already: setting up another can take over what the first one holds (a logger's
        handlers, a module-level cache)."""
        functions = [self.reference, self.lines.function]
        traced = _spread(sources, code_constants.TRACED_CALLS)
        calls = [(function, self.keep(fresh_copy(value))) for function in functions for value in traced]
        values = code_constants.compared_at_run_time(self.constants, calls)
        self.constants = code_constants.with_compared(self.constants, values)
        self.report.constants = self.constants.count()
        self.report.compared = self.constants.compared

    def _set_aside(self, value: Any, difference: str, status: str | None, near: bool, raised: bool) -> bool:
        """Whether ``value``, on which the two differ, lies outside the declared inputs: then the
        difference is kept apart (the first one, and a count), not reported as the verdict."""
        if self._outside(value) is None:
            return False
        self.report.outside_differences += 1
        if self.outside_first is None:
            self.outside_first = (value, difference, status, near, raised)
        return True

    def _outside(self, value: Any) -> str | None:
        """Why ``value`` lies outside the domain, or None. A tuple of a list's items is judged by its
        items (inside wherever the reference takes it); a one-shot iterator is always outside: a
        correct rewrite for lists (NumPy's asarray, a len() check) may not take one, and no case
        declares one, so a difference there is said beside the verdict."""
        if isinstance(value, boundary_values.OneShot):
            items = self.domain.outside(value.items)
            return items or "a one-shot iterator, which no declared input is"
        if type(value) is tuple and list in self.domain.types:
            value = list(value)
        return self.domain.outside(value)

    def outside_finding(self) -> Report | None:
        """The first difference outside the domain, made smaller: reported beside the verdict,
        or as the verdict where the input is inside after all (a strategy drew such inputs later
        on, or a smaller input inside the domain differs as well)."""
        if self.outside_first is None:
            return None
        value, difference, status, near, raised = self.outside_first
        value, difference, status = self._made_smaller(value, difference, status, near)
        reason = self._outside(value)
        if reason is None:
            return self.found(difference, _short(value), None, status)
        if self.strategy_declared:
            declare = "let @bench.strategy draw such inputs"
        elif raised:  # a case on which the reference raises cannot be timed: a strategy can hold it
            declare = "declare a @bench.strategy that draws such inputs"
        else:
            declare = f"declare such an input with a @bench.case returning {_short(value)}"
        self.report.outside = f"{reason}: {difference}; counterexample: {_short(value)}; to count it, {declare}"
        return None

    def _made_smaller(self, value: Any, difference: str, status: str | None, near: bool) -> tuple[Any, str, str | None]:
        """A failing generated input cut smaller while it still fails (perflab.bench.worker.smaller_inputs:
        Hypothesis does not shrink out of a declared input at full size), with its difference and status;
        an input inside the domain stays inside (a list of floats is not cut down to an empty one)."""
        smallest = [value, difference, status]
        inside = self._outside(value) is None

        def fails(candidate: Any) -> bool:
            if inside and self._outside(candidate) is not None:
                return False
            try:
                found_status, found = self.check_fresh(candidate, near=near)
            except _OutsideDomain:
                return False
            except _ErrorBehaviour as error:
                found_status, found = None, str(error)
            if found:
                smallest[:] = [candidate, found, found_status]
            return bool(found)

        notes = list(self.report.notes)
        smaller_inputs.smaller(value, fails)  # (what it returns is the last input that failed: smallest's)
        self.report.notes = notes  # what the checks noted is about them, not the finding
        return smallest[0], smallest[1], smallest[2]

    def _around_declared(self, st: Any) -> Any | None:
        """The declared inputs changed at their full size (perflab.bench.worker.declared_variants),
        one generated input in _FULL_SIZE_ONE_IN: generated inputs are small. None: nothing to vary."""
        around = declared_variants.around_declared(st, list(self.declared.values()), variant)
        if around is not None:
            self.note("and the declared inputs changed at their full size (an item, a cut at 2**k +- 1, an extension)")
        return around

    def _strategy(self, st: Any, strategy_function: Callable | None) -> Any:
        if strategy_function is None:
            values = list(self.declared.values())
            derived = derived_strategies.from_values(st, values)
            if derived is not None:
                self.note(f"generated inputs derived from the declared cases: {derived.description}")
                if not any(isinstance(value, dict) for value in values):
                    return derived.strategy
                # Documents (dicts) keep the JSON-like default beside their derived shape: fixed keys
                # alone would never try other keys or nesting.
                self.note("and JSON-like values (the declared cases are documents)")
                return derived.strategy | json_values(st, allow_nan=isinstance(self.comparator, ExactComparator))
            # NaN and infinities only where the comparator is known to treat NaN as equal to
            # itself (exact); they are not JSON values, and a user comparator using == would
            # call the reference different from itself.
            allow_nan = isinstance(self.comparator, ExactComparator)
            if not allow_nan:
                self.note("default strategy: JSON-like values without NaN or infinities")
            return json_values(st, allow_nan=allow_nan)
        name = getattr(strategy_function, "__name__", "strategy")
        try:
            strategy = strategy_function(st)
        except Exception as error:
            raise FuzzError(
                "strategy", _one_line(f"{self.path}: strategy {name!r} raised {type(error).__name__}: {error}")
            ) from None
        if not isinstance(strategy, st.SearchStrategy):
            raise FuzzError(
                "strategy",
                f"{self.path}: strategy {name!r} returned {type(strategy).__name__}, expected a Hypothesis strategy",
            )
        return strategy

    def _state_or_none(self, value: Any) -> str | None:
        """ "state" when a freshly set-up contender gives the reference's output on ``value``."""
        if not self.rebuildable:
            return None
        try:
            fresh = self.build_contender()
            agrees = self.check_fresh(value, fresh)[1] is None
        except Exception:
            return None
        return "state" if agrees else None

    # --- phase 2: stateful patterns --------------------------------------------------------------

    def in_turn(self, inputs: list[tuple[str, Any]], report: bool = True) -> Report | None:
        """Each input once, one after the other: a cache or state that mixes inputs up shows here.
        Always run, because it times each input's check; ``report=False`` ignores differences."""
        for position, (label, value) in enumerate(inputs):
            started = time.perf_counter()
            try:
                status, difference = self.check_fresh(value)
            except _OutsideDomain:
                continue
            except _ErrorBehaviour as error:
                status, difference = None, str(error)
            self.report.calls += 1
            self.check_seconds[position] = time.perf_counter() - started
            if difference and report:
                return self.found(difference, f"{label}: {_short(value)}", "in-turn", status)
            overwritten = self.held.overwritten()
            if overwritten and report:
                return self.found(overwritten, f"{label}: {_short(value)}", "overwritten")
        return None

    def quickest(self, inputs: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
        """The inputs whose check was quick in "in-turn" (at least the two quickest), in their order:
        the other patterns check each many times, and multi-megabyte cases would take minutes."""
        by_time = sorted(self.check_seconds, key=lambda pattern: self.check_seconds[pattern])
        quick = [p for p in by_time if self.check_seconds[p] <= _QUICK_CHECK]
        chosen = by_time[: min(_PATTERN_INPUTS, max(len(quick), 2))]  # two make a pair for the patterns
        if len(chosen) < len(by_time):
            self.note(
                f"patterns 'mutated', 'interleaved' and 'id-reuse' used the {len(chosen)} quickest "
                f"of {len(by_time)} inputs"
            )
        return [inputs[position] for position in sorted(chosen)]

    def mutated(self, inputs: list[tuple[str, Any]]) -> Report | None:
        """Call, change the same dict or list in place, call again; after each of three changes."""
        mutable = [(label, value) for label, value in inputs if isinstance(value, (dict, list))]
        if not mutable:
            kinds = sorted({type(value).__name__ for _, value in inputs})
            self.note(f"pattern 'mutated' skipped: no input is a dict or list (inputs: {', '.join(kinds)})")
            return None
        for label, value in mutable:
            target = self.keep(fresh_copy(value))
            steps: list[str] = []
            for change in (None, _replace_item, _add_item, _remove_item):
                if change is not None:
                    step = change(target)
                    if step is None:
                        continue
                    steps.append(step)
                try:
                    expected = self.expected(target)
                except _OutsideDomain:
                    break
                self.report.calls += 1
                difference = self.difference(expected, target)
                if difference:
                    when = f"after {', then '.join(steps)}" if steps else "on the first call"
                    return self.found(
                        f"{when}: {difference}",
                        f"{label}: {_short(value)}; {'; '.join(steps)} in place -> {_short(target)}",
                        "mutated",
                    )
        return None

    def interleaved(self, inputs: list[tuple[str, Any]]) -> Report | None:
        """x, y, x, y, x, y on the same two objects, for a few pairs of consecutive inputs."""
        usable = self._in_domain(inputs)
        pairs = [(usable[i], usable[i + 1]) for i in range(len(usable) - 1)][:_INTERLEAVED_PAIRS]
        for (x_label, x, x_expected), (y_label, y, y_expected) in pairs:
            objects = {"x": (self.keep(fresh_copy(x)), x_expected), "y": (self.keep(fresh_copy(y)), y_expected)}
            for number, name in enumerate("xyxyxy", 1):
                argument, expected = objects[name]
                self.report.calls += 1
                difference = self.difference(expected, argument)
                if difference:
                    return self.found(
                        f"call {number} of x, y, x, y, x, y (on {name}): {difference}",
                        f"x = {x_label}: {_short(x)}; y = {y_label}: {_short(y)}",
                        "interleaved",
                    )
        return None

    def id_reuse(self, inputs: list[tuple[str, Any]]) -> Report | None:
        """Each input x with a partner y (a variant of x, else the next input): fresh copies in
        the order x, y, y, x, twice. A copy often reuses the slot just freed, or the one before it
        when copying made a temporary object, so y meets one of x's ids either way."""
        usable = self._in_domain(inputs)
        pairs = []
        for index, (label, value, expected) in enumerate(usable):
            partner = self._varied(label, value) or (usable[index + 1] if index + 1 < len(usable) else None)
            if partner is not None:
                pairs.append(((label, value, expected), partner))
        if not pairs:
            self.note("pattern 'id-reuse' skipped: fewer than two distinct inputs")
            return None
        last_owner: dict[int, tuple[str, Any]] = {}
        reused = 0
        for _ in range(_ID_REUSE_ROUNDS):
            for x, y in pairs:
                for label, value, expected in (x, y, y, x):
                    argument = fresh_copy(value)  # not kept: dropped right after the call
                    previous = last_owner.get(id(argument))
                    last_owner[id(argument)] = (label, value)
                    reused_other = previous is not None and previous[0] != label
                    reused += reused_other
                    self.report.calls += 1
                    difference = self.difference(expected, argument)
                    del argument
                    if difference:
                        if reused_other and previous is not None:
                            difference += (
                                f" (this copy got the id of an earlier argument: {previous[0]}: {_short(previous[1])})"
                            )
                        return self.found(difference, f"{label}: {_short(value)}", "id-reuse")
        if not reused:
            self.note("pattern 'id-reuse' inconclusive: no id was reused by a different input")
        return None

    def _varied(self, label: str, value: Any) -> tuple[str, Any, Any] | None:
        """(label, a variant of ``value``, its reference output), if there is one in the domain."""
        varied = variant(value)
        if varied is None:
            return None
        try:
            return f"{label}, varied", varied, self.expected(varied)
        except _OutsideDomain:
            return None

    def _in_domain(self, inputs: list[tuple[str, Any]]) -> list[tuple[str, Any, Any]]:
        """(label, input, reference output) of the inputs the reference accepts."""
        usable = []
        for label, value in inputs:
            try:
                usable.append((label, value, self.expected(value)))
            except _OutsideDomain:
                continue
        return usable


class _HeldOutputs:
    """The last outputs the contender and the reference gave, each with a snapshot taken right
    after its call: a contender returning a view of a buffer that its next call overwrites passes
    the comparison made right after the call, and shows here when a later call changes it. The
    reference doing the same (an API that documents it) makes it acceptable."""

    KEPT = 8  # outputs held: a buffer is usually overwritten by the very next call

    def __init__(self) -> None:
        self.entries: list[tuple[int, Any, Any, Any, Any]] = []  # (call, reference's, snapshot, contender's, snapshot)
        self.calls = 0

    def hold(self, expected: Any, actual: Any) -> None:
        self.calls += 1
        try:
            entry = (self.calls, expected, integrity.snapshot(expected), actual, integrity.snapshot(actual))
        except Exception:  # neither pickled nor deep-copied: nothing to compare later
            return
        self.entries = [*self.entries, entry][-self.KEPT :]

    def overwritten(self) -> str | None:
        """How an earlier output of the contender changed since its call, or None."""
        for call, expected, expected_then, actual, actual_then in self.entries:
            change = integrity.changed(actual_then, actual)
            if change is not None and integrity.changed(expected_then, expected) is None:
                later = self.calls - call
                return (
                    f"the output of an earlier call changed after {later} later call{'s' * (later > 1)} "
                    f"(the reference's did not): {change}; it is a view of state the "
                    "contender reuses"
                )
        return None


def _ignore_perflabs_constants() -> None:
    """Keep perflab's own source out of the inputs Hypothesis draws.

    Hypothesis draws some values from the constants of the "local" modules imported in the process
    (neither the standard library nor site-packages). perflab installed editable counts as local,
    so the inputs drawn depended on how perflab was installed and which of its modules the worker
    had imported (a lazy import once turned a found difference into "equivalent"). perflab's modules
    are marked as already scanned; the benchmark's own modules still contribute, as they should.
    Hypothesis keeps that record privately: without it, nothing is changed.
    """
    try:
        from hypothesis.internal.conjecture import providers
    except ImportError:
        return
    scanned = getattr(providers, "_seen_modules", None)
    if isinstance(scanned, set):
        scanned.update(id(module) for name, module in list(sys.modules.items()) if name.split(".")[0] == "perflab")


def json_values(st: Any, allow_nan: bool) -> Any:
    """The default strategy: JSON-like values, nested (None, bool, int, float, str, list, dict).

    Integers stay within 64 bits, the range every JSON library accepts; strings include
    non-ASCII (Hypothesis' default alphabet, without surrogates).
    """
    scalars = (
        st.none()
        | st.booleans()
        | st.integers(min_value=-(2**63), max_value=2**63 - 1)
        | st.floats(allow_nan=allow_nan, allow_infinity=allow_nan)
        | st.text()
    )
    return st.recursive(
        scalars,
        lambda children: st.lists(children, max_size=6) | st.dictionaries(st.text(), children, max_size=6),
        max_leaves=25,
    )


def _replace_item(target: dict | list) -> str | None:
    for key in target if isinstance(target, dict) else range(len(target)):
        item = variant(target[key])
        if item is not None:
            target[key] = item
            return f"replaced [{key!r}] with {_short(item)}"
    return None


def _add_item(target: dict | list) -> str | None:
    if not target:
        return None
    if isinstance(target, list):
        target.append(copy.deepcopy(target[-1]))
        return "appended a copy of the last element"
    key = next(iter(target))
    if isinstance(key, str):
        new_key: Any = next(f"{key}~{n}" for n in itertools.count(1) if f"{key}~{n}" not in target)
    elif isinstance(key, int):
        new_key = max(k for k in target if isinstance(k, int)) + 1
    else:
        return None
    target[new_key] = copy.deepcopy(target[key])
    return f"added key {new_key!r}"


def _remove_item(target: dict | list) -> str | None:
    if not target:
        return None
    if isinstance(target, list):
        target.pop()
        return "removed the last element"
    key = next(reversed(target))
    del target[key]
    return f"removed key {key!r}"


def _spread(values: list[Any], count: int) -> list[Any]:
    """``count`` distinct ones of ``values`` (non-empty ones first), from evenly spaced places: small
    and large, early and late."""
    distinct: dict[str, Any] = {}
    for value in values:
        distinct.setdefault(repr(value)[:2000], value)
    kept = sorted(distinct.values(), key=lambda value: not _size(value))
    step = max(1, len(kept) // max(count, 1))
    return kept[::step][:count]


def _pick_generated(values: list[Any]) -> list[Any]:
    """A few of the larger distinct generated inputs: more structure for the stateful patterns."""
    by_repr: dict[str, Any] = {}
    for value in values:
        text = repr(value)
        if len(text) <= 2000:
            by_repr.setdefault(text, value)
    largest = sorted(by_repr.items(), key=lambda item: len(item[0]), reverse=True)
    return [value for _, value in largest[:_STATEFUL_GENERATED]]


def _nothing(value: Any) -> bool:
    """None, or an empty list, tuple, set, mapping or array: a collection of items with none (not
    text, where the empty string is ordinary bad input with a contract: int("") raises ValueError)."""
    if value is None:
        return True
    if is_array(value):
        return int(value.size) == 0
    return isinstance(value, (list, tuple, set, frozenset, dict)) and not value


def _size(value: Any) -> int:
    """Items of a container, characters of text, elements of an array; 0 for anything else."""
    if is_array(value):
        return int(value.size)
    return len(value) if isinstance(value, (list, tuple, str, bytes, dict)) else 0


def _cut(value: Any, size: int) -> Any:
    """``value``'s first ``size`` items (a dict's first ``size`` keys), or ``value`` if not a container."""
    if isinstance(value, dict):
        return dict(itertools.islice(value.items(), size))
    return value[:size] if isinstance(value, (list, tuple, str, bytes)) or is_array(value) else value


def _cache_directory() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "perflab"


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _short(value: Any) -> str:
    return written(value, _REPR_LIMIT)
