"""What the tiers of test_fuzz.py share (split by tier from one file)."""

import sys

from perflab.measure.difference_search import fuzz_contender
from perflab.measure.launcher import run_job


def fuzz(path, contender, reference="ref", examples=50, seed=0, python=sys.executable, patterns=None):
    return fuzz_contender(
        path,
        contender,
        reference,
        lambda job: run_job(job, 120, python),
        examples=examples,
        seed=seed,
        patterns=patterns,
    )


STRINGS = """
import perflab

bench = perflab.Benchmark("strings")

@bench.case
def TITLE():
    return "Crème Brûlée"

@bench.strategy
def titles(st):
    return st.text(max_size=10)

@bench.contender
def ref(text):
    return text.upper()

_memo = {}

@bench.contender
def id_memo(text):
    return _memo.setdefault(id(text), text.upper())

calls = []

@bench.contender
def tenth_call_wrong(text):
    calls.append(text)
    return text.upper() + ("!" if len(calls) == 10 else "")

@bench.contender(setup=True)
def counter_kept():
    calls = []
    def upper(text):
        calls.append(text)
        return text.upper() if len(calls) == 1 else text.upper() + "!"
    return upper
"""
