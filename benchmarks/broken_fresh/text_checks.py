"""Fresh corpus: text scanning. A check that looks only at a prefix, case folding that is not
Unicode's, and a slug that keeps what the reference drops. Declared cases are plain ASCII."""

import perflab

bench = perflab.Benchmark("text_checks", description="Is a document plain ASCII?")


@bench.case
def LOG():
    return "GET /index.html 200 1532 0.004\n" * 120


@bench.contender(reference=True)
def isascii(text):
    """str.isascii"""
    return text.isascii()


@bench.contender
def sniff_prefix(text):
    """only the first 2 KiB are checked, like a content sniffer"""
    return text[:2048].isascii()


@bench.contender
def max_codepoint(text):
    """control: the largest code point is below 128"""
    return max(map(ord, text), default=0) < 128


@bench.contender
def encode(text):
    """control: encoding as ASCII succeeds"""
    try:
        text.encode("ascii")
    except UnicodeEncodeError:
        return False
    return True
