"""logging: messages/s of stdlib logging, default vs tuned with documented switches, vs picologging.

Case study 2 of perflab (docs/case-studies.md). Cases: pyperformance's logging sub-benchmarks
(SILENT: 10 debug calls at level WARNING, nothing emitted; SIMPLE: 10 warnings; FORMAT: 10 warnings
with a %s argument; a StreamHandler on io.StringIO with the format "%(message)s") and REALISTIC:
100 calls, 70% debug / 20% info / 8% warning / 2% error at level INFO, formatted with time, level,
logger name and message, written by a FileHandler to a temporary file.

Contenders:
- stdlib_default: the logging module as configured above, nothing else.
- stdlib_tuned: only the switches the Logging HOWTO documents under "Optimization", each of which
  leaves this output unchanged: logThreads, logProcesses, logMultiprocessing = False (those record
  fields are not in the formats), ``logging._srcfile = None`` (skips the caller lookup; allowed only
  because no format here has a caller field, which setup checks), and an ``isEnabledFor`` guard
  before each call.
- picologging: Microsoft's C drop-in replacement, where it installs for the running Python.

One call of a contender makes every logging call of the case, then returns the text emitted, so
that equivalence is checked on what was really written. Reading it back (and emptying the stream
or file, so it cannot grow without bound) is done in the same way for every contender and is
timed with them; it is small next to the logging calls.

Timestamp: the timed path is untouched real logging (real clock, real Formatter), so asctime
differs between two runs. The comparator pins it instead: each line's timestamp must be a
well-formed "YYYY-MM-DD HH:MM:SS,mmm" within 60 s of the reference's, and is then replaced by one
fixed value before the texts are compared exactly. Pinning the clock or formatTime inside the
contenders would have changed the code being timed.
"""

import atexit
import io
import os
import random
import re
import tempfile
from dataclasses import dataclass
from datetime import datetime

import perflab
from perflab.bench.comparators import first_difference

DEBUG, INFO, WARNING, ERROR = 10, 20, 30, 40  # the same numbers in logging and picologging
MESSAGE = "some important information to be logged"  # pyperformance's message
PYPERF_FORMAT = "%(message)s"
REALISTIC_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
CALLER_FIELDS = ("%(pathname)", "%(filename)", "%(module)", "%(lineno)", "%(funcName)")


@dataclass(frozen=True)
class Scenario:
    """How the logger is set up, and the logging calls one benchmark call makes."""

    logger: str
    format: str
    level: int
    to_file: bool
    calls: tuple  # (level, message, args) in call order

    @property
    def setup(self):
        """What the logger's configuration depends on (the calls do not)."""
        return self.logger, self.format, self.level, self.to_file


def realistic_calls(count=100, seed=2024):
    """A service's mix: 70% debug, 20% info, 8% warning, 2% error, in a fixed shuffled order."""
    templates = {
        DEBUG: ("cache hit for key %s", ("user:1234:profile",)),
        INFO: ("request %s %s -> %d in %.1f ms", ("GET", "/api/orders/981", 200, 12.437)),
        WARNING: ("slow query (%.0f ms): %s", (412.9, "SELECT * FROM orders WHERE id = ?")),
        ERROR: ("payment %s failed: %s", ("pay_7f3a", "card declined")),
    }
    levels = [DEBUG] * 70 + [INFO] * 20 + [WARNING] * 8 + [ERROR] * 2
    random.Random(seed).shuffle(levels)
    return tuple((level, *templates[level]) for level in levels[:count])


def messages(scenario):
    """Work per call: logging calls made (enabled or not), so throughput is in messages/s."""
    return len(scenario.calls)


TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}(?= )")


def same_log_text(reference, output):
    """Equal text line for line, with each line's timestamp checked and then pinned (see above)."""
    expected_lines, lines = reference.splitlines(), output.splitlines()
    for number, (expected, line) in enumerate(zip(expected_lines, lines), 1):
        expected_stamp = TIMESTAMP.match(expected)
        if expected_stamp:
            stamp = TIMESTAMP.match(line)
            if not stamp:
                raise AssertionError(f"line {number} has no timestamp like the reference's: {line[:60]!r}")
            seconds = abs((_parse(stamp[0]) - _parse(expected_stamp[0])).total_seconds())
            if seconds > 60:
                raise AssertionError(f"line {number}: timestamp {stamp[0]} is {seconds:.0f} s off")
    pinned = [TIMESTAMP.sub("<asctime>", line) for line in lines]
    expected_pinned = [TIMESTAMP.sub("<asctime>", line) for line in expected_lines]
    difference = first_difference(expected_pinned, pinned, sides=("expected", "emitted"))
    if difference:
        raise AssertionError(f"emitted text differs (lines, timestamps pinned) {difference}")
    return True


def _parse(stamp):
    return datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S,%f")


bench = perflab.Benchmark(
    "logging_messages",
    description="Make logging calls and emit the enabled ones through a formatter and handler",
    compare=same_log_text,
)


@bench.strategy  # perflab compare also checks generated messages (any text, "%" and newlines too)
def scenarios(st):
    call = st.tuples(st.sampled_from([DEBUG, INFO, WARNING, ERROR]), st.text(max_size=40), st.just(()))
    return st.builds(
        Scenario,
        logger=st.just("fuzz"),
        format=st.sampled_from([PYPERF_FORMAT, REALISTIC_FORMAT]),
        level=st.sampled_from([DEBUG, INFO, WARNING]),
        to_file=st.just(False),
        calls=st.lists(call, max_size=10).map(tuple),
    )


@bench.case(items=messages)
def SILENT():
    return Scenario("pyperf", PYPERF_FORMAT, WARNING, False, ((DEBUG, MESSAGE, ()),) * 10)


@bench.case(items=messages)
def SIMPLE():
    return Scenario("pyperf", PYPERF_FORMAT, WARNING, False, ((WARNING, MESSAGE, ()),) * 10)


@bench.case(items=messages)
def FORMAT():
    return Scenario("pyperf", PYPERF_FORMAT, WARNING, False, ((WARNING, "important: %s", (MESSAGE,)),) * 10)


@bench.case(items=messages)
def REALISTIC():
    return Scenario("shop.payments", REALISTIC_FORMAT, INFO, True, realistic_calls())


def configure(logging, scenario):
    """A logger set up for ``scenario`` with the ``logging`` module given (the stdlib or a drop-in),
    and a function that returns the text emitted since it was last called, emptying the stream
    or file.

    The logger is created directly rather than by getLogger(), so that two contenders in one
    process (the equivalence check runs the reference and a contender together) never share
    handlers; its logging calls run the same code as a getLogger() logger's.
    """
    logger = logging.Logger(scenario.logger, scenario.level)
    if scenario.to_file:
        descriptor, path = tempfile.mkstemp(prefix="perflab-logging-", suffix=".log")
        os.close(descriptor)
        atexit.register(os.remove, path)
        handler = logging.FileHandler(path, encoding="utf-8")
        reader = open(path, encoding="utf-8")  # noqa: SIM115 - read on every call for the benchmark's lifetime

        def take_output():
            text = reader.read()
            handler.stream.seek(0)
            handler.stream.truncate()
            reader.seek(0)
            return text
    else:
        stream = io.StringIO()
        handler = logging.StreamHandler(stream)

        def take_output():
            text = stream.getvalue()
            stream.seek(0)
            stream.truncate()
            return text

    handler.setFormatter(logging.Formatter(scenario.format))
    logger.addHandler(handler)
    return logger, take_output


def emitter(logging, guarded=False):
    """The function to time: the scenario's logging calls, then the text they emitted."""
    configured = {}

    def emit(scenario):
        if scenario.setup not in configured:  # set up once per worker, on the first call
            configured[scenario.setup] = configure(logging, scenario)
        logger, take_output = configured[scenario.setup]
        log = logger.log
        if guarded:
            enabled = logger.isEnabledFor
            for level, message, args in scenario.calls:
                if enabled(level):
                    log(level, message, *args)
        else:
            for level, message, args in scenario.calls:
                log(level, message, *args)
        return take_output()

    return emit


@bench.contender(setup=True, reference=True)
def stdlib_default():
    """The standard library's logging module, default settings."""
    import logging

    return emitter(logging)


@bench.contender(setup=True)
def stdlib_tuned():
    """Stdlib logging with the HOWTO's documented switches that keep this output identical."""
    import logging

    # Process-wide switches: they apply to every logger, as they would in an application.
    logging.logThreads = False
    logging.logProcesses = False
    logging.logMultiprocessing = False
    # No caller lookup (sys._getframe walk). Only valid when no format asks for caller fields:
    # with %(lineno)d in the format, this would silently print empty/zero fields instead.
    if any(field in fmt for fmt in (PYPERF_FORMAT, REALISTIC_FORMAT) for field in CALLER_FIELDS):
        raise ValueError("a format uses caller fields: the caller lookup cannot be skipped")
    logging._srcfile = None
    return emitter(logging, guarded=True)


@bench.contender(setup=True)
def picologging():
    """picologging (C drop-in replacement for logging), where it installs."""
    import picologging

    return emitter(picologging)
