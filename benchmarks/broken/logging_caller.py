"""Broken optimization of logging: skipping the caller lookup when the format prints the caller.

The Logging HOWTO allows ``logging._srcfile = None`` (no stack walk per record) only when no
format uses caller fields. Here the format has %(funcName)s and %(lineno)d, so skipping the
lookup prints "(unknown function):0" instead. (The stub is set on this contender's own logger:
the process-wide switch would also change the reference, which runs in the same worker.)
"""

import io
import logging

import perflab

FORMAT = "%(levelname)s %(funcName)s:%(lineno)d %(message)s"

bench = perflab.Benchmark("logging_caller", description="Log messages with caller fields", compare="exact")


@bench.case
def REQUESTS():
    return ["GET /api/orders/981 -> 200", "payment pay_7f3a failed: card declined", "100% done"]


@bench.strategy
def messages(st):
    return st.lists(st.text(), max_size=4)


def emitter(name, skip_caller_lookup=False):
    """A logger writing to a string buffer; the function to time logs the messages and returns the text."""
    stream = io.StringIO()
    logger = logging.getLogger(f"broken.{name}")
    logger.handlers[:] = [logging.StreamHandler(stream)]
    logger.handlers[0].setFormatter(logging.Formatter(FORMAT))
    logger.propagate = False
    if skip_caller_lookup:
        logger.findCaller = lambda *args, **kwargs: ("(unknown file)", 0, "(unknown function)", None)

    def emit(messages):
        handle_request(logger, messages)
        text = stream.getvalue()
        stream.seek(0)
        stream.truncate()
        return text

    return emit


def handle_request(logger, messages):
    for message in messages:
        logger.warning(message)  # the caller fields point here, for every contender


@bench.contender(setup=True, reference=True)
def stdlib():
    """logging, default settings."""
    return emitter("stdlib")


@bench.contender(setup=True)
def no_caller_lookup():
    """logging without the per-record stack walk (findCaller stubbed out)."""
    return emitter("no_caller_lookup", skip_caller_lookup=True)


@bench.contender(setup=True, description="control: logging with the documented switches that keep this output")
def no_thread_fields():
    logging.logThreads = logging.logProcesses = logging.logMultiprocessing = False
    return emitter("no_thread_fields")
