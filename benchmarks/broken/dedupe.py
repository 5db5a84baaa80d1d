"""Broken optimization of order-preserving de-duplication: a set leaks the hash order.

``list(set(words))`` is quick, and for some inputs under some hash seeds its order happens to be
the order of first appearance. Under another PYTHONHASHSEED, or on other words, it is not.
"""

import perflab

bench = perflab.Benchmark("dedupe", description="Distinct words in order of first appearance")


@bench.case
def WORDS():
    return ["b", "a", "b", "c", "a", "d"]


@bench.strategy
def words(st):
    return st.lists(st.sampled_from(["alpha", "beta", "gamma", "delta", "epsilon"]), max_size=12)


@bench.contender(reference=True)
def from_keys(words):
    """list(dict.fromkeys(words))"""
    return list(dict.fromkeys(words))


@bench.contender
def via_set(words):
    """list(set(words)): the order is the set's, which depends on the hash seed."""
    return list(set(words))


@bench.contender
def seen_loop(words):
    """control: a loop with a seen-set, appending first appearances"""
    seen, out = set(), []
    for word in words:
        if word not in seen:
            seen.add(word)
            out.append(word)
    return out
