"""Issue 12, example 5: a content-keyed memo cache: right, but fast only because timing repeats
one input."""

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


_memo = {}


@bench.contender
def memoized(words):
    found = _memo.get(words)
    if found is None:
        found = _memo[words] = counted(words)
    return found
