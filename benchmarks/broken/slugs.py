"""Broken optimization of a pure string function: a memo keyed by id(), "str is immutable".

A str never changes, so its id seems to name its value. But once the string is freed, CPython
gives the id to the next object of the same size: the memo then answers with another string's
slug. A memo keyed by the value (functools.lru_cache) is correct.
"""

import functools
import unicodedata

import perflab

bench = perflab.Benchmark("slugs", description="Turn a title into a URL slug", compare="exact")


@bench.case
def TITLE():
    return "Crème Brûlée for Beginners"


@bench.strategy
def titles(st):
    return st.text(max_size=30)


@bench.contender(reference=True)
def slugify(title):
    """NFKD, drop what is not ASCII, lower case, words joined by '-'."""
    ascii_text = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode()
    return "-".join(ascii_text.lower().split())


_by_id = {}


@bench.contender
def id_memo(title):
    """slugify memoized by id(title)."""
    key = id(title)
    if key not in _by_id:
        _by_id[key] = slugify(title)
    return _by_id[key]


@bench.contender(description="control: slugify memoized by value (functools.lru_cache), correct")
@functools.lru_cache(maxsize=1024)
def value_memo(title):
    return slugify(title)
