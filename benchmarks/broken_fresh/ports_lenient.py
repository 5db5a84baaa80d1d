"""Fresh corpus: parsing a port from configuration text. The strategy generates valid ports
only, so nothing but generated near-misses ever asks what happens to bad text."""

import functools

import perflab

bench = perflab.Benchmark("port_config", description="A TCP port from configuration text, or ValueError")


@bench.case
def HTTP():
    return "8080"


@bench.case
def TLS():
    return "443"


@bench.strategy
def valid_ports(st):
    return st.integers(0, 65535).map(str)


@bench.contender(reference=True)
def checked(text):
    """digits only, 0..65535, else ValueError"""
    if not text.isdigit() or not text.isascii():
        raise ValueError(f"not a port: {text!r}")
    port = int(text)
    if port > 65535:
        raise ValueError(f"port out of range: {port}")
    return port


@bench.contender
def int_only(text):
    """int(text): accepts " 80", "-1", "+80", "1_000" and 70000"""
    return int(text)


@bench.contender
def masked(text):
    """int(text) & 0xFFFF: never out of range, silently wrong"""
    return int(text) & 0xFFFF


_rejected = set()


@bench.contender
def failure_cache(text):
    """remembers rejected text and answers 0 for it the second time"""
    if text in _rejected:
        return 0
    try:
        return checked(text)
    except ValueError:
        _rejected.add(text)
        raise


@bench.contender
def cached(text):
    """control: lru_cache around the checked parser (exceptions are not cached)"""
    return _cached(text)


@functools.lru_cache(maxsize=1024)
def _cached(text):
    return checked(text)


@bench.contender
def strict_int(text):
    """control: the same rules, written with a range check first"""
    if not (text.isascii() and text.isdigit()):
        raise ValueError("digits only")
    if len(text.lstrip("0")) > 5 or int(text) > 65535:
        raise ValueError("out of range")
    return int(text)
