"""Fresh corpus: caseless comparison of user names. lower() is not casefold(): "STRASSE" and
"straße" are equal caselessly, and an ASCII-only fast path misses non-ASCII letters."""

import perflab

bench = perflab.Benchmark("case_folding", description="Caseless equality of two user names")


@bench.case
def NAMES():
    return ("Alice.Smith", "alice.smith")


@bench.strategy
def name_pairs(st):
    name = st.text(alphabet="abcABCßẞσςΣİıKk .", max_size=8)
    return st.tuples(name, name) | name.map(lambda n: (n, n.upper())) | name.map(lambda n: (n, n.lower()))


@bench.contender(reference=True)
def casefold(pair):
    """casefold on both sides"""
    first, second = pair
    return first.casefold() == second.casefold()


@bench.contender
def lower(pair):
    """lower() on both sides: misses ß/SS and final sigma"""
    first, second = pair
    return first.lower() == second.lower()


@bench.contender
def first_ascii_fast_path(pair):
    """ASCII fast path decided on the first name only: "ss" against "ß" takes it"""
    first, second = pair
    if first.isascii():
        return first.lower() == second.lower()
    return first.casefold() == second.casefold()


@bench.contender
def ascii_fast_path(pair):
    """control: ASCII fast path when both names are ASCII (lower equals casefold there)"""
    first, second = pair
    if first.isascii() and second.isascii():
        return first.lower() == second.lower()
    return first.casefold() == second.casefold()
