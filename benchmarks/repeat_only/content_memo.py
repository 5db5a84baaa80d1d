"""Issue 12, example 5: a content-keyed memo cache: right, but fast only because timing repeats
one input; beside it a genuine speedup (counting in C) that must carry no repeat-only caution.
Used by tests/e2e/test_equivalence_integrity.py and benchmarks/repeat_only_cautions.py."""

import collections

import perflab

bench = perflab.Benchmark("word_counts")


@bench.case
def WORDS():
    return tuple(f"w{i % 97}" for i in range(3_000))


@bench.contender
def counted(words):
    counts = {}
    for word in words:
        key = word.strip().lower()
        counts[key] = counts.get(key, 0) + 1
    return tuple(sorted(counts.items()))


@bench.contender
def counter(words):
    """genuine: collections.Counter counts in C"""
    return tuple(sorted(collections.Counter(word.strip().lower() for word in words).items()))


_memo = {}


@bench.contender
def memoized(words):
    found = _memo.get(words)
    if found is None:
        found = _memo[words] = counted(words)
    return found
