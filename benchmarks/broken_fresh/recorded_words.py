"""Fresh corpus: a word tokenizer as `perflab isolate` records it, each call an (args, kwargs)
pair. Two regex rewrites that read the same on ASCII text: with IGNORECASE, [a-z] also matches
the Kelvin sign, long s and dotless i; lowering first turns the Kelvin sign into a "k" and dotted
capital I into an "i" and a combining dot."""

import re

import perflab

bench = perflab.Benchmark("recorded_words", description="Lower-case words of each recorded line")


@bench.case
def CALLS():
    lines = ["The quick brown fox 42 jumps", "over the lazy dog, number 7", "Zoë's café"]
    return [((line,), {}) for line in lines]


WORD = re.compile(r"[A-Za-z]+")


def tokenize(line):
    return [word.lower() for word in WORD.findall(line)]


@bench.contender(reference=True)
def recorded(calls):
    """the recorded function, called as it was"""
    return [tokenize(*args, **kwargs) for args, kwargs in calls]


IGNORING_CASE = re.compile(r"[a-z]+", re.IGNORECASE)


@bench.contender
def ignorecase_class(calls):
    """[a-z] with IGNORECASE: matches non-ASCII letters whose case folds to ASCII"""
    return [[word.lower() for word in IGNORING_CASE.findall(line)] for (line,), _ in calls]


LOWER_WORD = re.compile(r"[a-z]+")


@bench.contender
def lower_then_match(calls):
    """the line lowered once, then [a-z]: lower() maps some non-ASCII letters into ASCII"""
    return [LOWER_WORD.findall(line.lower()) for (line,), _ in calls]


ASCII_WORD = re.compile(r"[a-z]+", re.IGNORECASE | re.ASCII)


@bench.contender
def ascii_ignorecase(calls):
    """control: IGNORECASE restricted to ASCII matching, the keyword arguments (none) left out"""
    return [[word.lower() for word in ASCII_WORD.findall(line)] for (line,), _ in calls]
