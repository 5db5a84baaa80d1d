"""Broken optimizations of input validation: accepting what the reference rejects, and failing
with an unrelated exception type.

Callers rely on ``ValueError`` for a bad port. Dropping the range check accepts "70000"; a
shortcut that raises TypeError for non-digits breaks every ``except ValueError``. A subclass of
ValueError is fine.
"""

import perflab

bench = perflab.Benchmark("ports", description="Parse a TCP port number from text")


@bench.case
def HTTP():
    return "8080"


@bench.strategy
def texts(st):
    return st.text(alphabet="0123456789-x ", max_size=7)


@bench.contender(reference=True)
def checked(text):
    """int(text), then 0..65535 or ValueError"""
    port = int(text)
    if not 0 <= port <= 65535:
        raise ValueError(f"port out of range: {port}")
    return port


@bench.contender
def no_range_check(text):
    """int(text) alone: "70000" is accepted."""
    return int(text)


@bench.contender
def digits_only(text):
    """A fast path for digits; anything else raises TypeError (callers catch ValueError)."""
    stripped = text.strip()
    if not stripped.isdigit():
        raise TypeError(f"not a port: {text!r}")
    port = int(stripped)
    if port > 65535:
        raise ValueError(f"port out of range: {port}")
    return port


class PortError(ValueError):
    pass


@bench.contender
def own_error(text):
    """control: the same checks, raising a ValueError subclass"""
    try:
        port = int(text)
    except ValueError as error:
        raise PortError(str(error)) from None
    if not 0 <= port <= 65535:
        raise PortError(f"port out of range: {port}")
    return port
