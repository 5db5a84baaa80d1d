"""Generated inputs reach the declared sizes and the boundaries: a contender that inspects only a
prefix, one that overflows 64 bits, one that skips the last chunk at a power-of-two length."""

import sys

from perflab.measure.difference_search import fuzz_contender
from perflab.measure.launcher import run_job
from perflab.results.model import EQUIVALENT, NOT_EQUIVALENT

PREFIX = """
import perflab

bench = perflab.Benchmark("is_ascii")

@bench.case
def DOCUMENT():
    return "plain ascii text, line after line. " * 100

@bench.contender
def ref(text):
    return text.isascii()

@bench.contender
def sniff_prefix(text):
    return text[:512].isascii()

@bench.contender
def control_encode(text):
    try:
        text.encode("ascii")
    except UnicodeEncodeError:
        return False
    return True
"""

PACK = """
import struct
import perflab

bench = perflab.Benchmark("checksum")

@bench.case
def IDS():
    return [12, 7000, 31, 400000]

@bench.contender
def ref(ids):
    return sum(ids) % (1 << 64)

@bench.contender
def packed(ids):
    return sum(struct.unpack(f"<{len(ids)}Q", struct.pack(f"<{len(ids)}q", *ids))) % (1 << 64)
"""


CHUNKS = """
import perflab

bench = perflab.Benchmark("xor")

@bench.case
def PACKET():
    return bytes(range(200)) * 3

@bench.contender
def ref(data):
    checksum = 0
    for byte in data:
        checksum ^= byte
    return checksum

@bench.contender
def chunked(data):
    checksum, full = 0, len(data) // 64
    for start in range(0, full * 64 - (64 if full and len(data) % 64 == 0 else 0), 64):
        for byte in data[start : start + 64]:
            checksum ^= byte
    for byte in data[full * 64 :]:
        checksum ^= byte
    return checksum
"""


def fuzz(path, contender):
    return fuzz_contender(path, contender, "ref", lambda job: run_job(job, 120, sys.executable), examples=200)


def test_a_contender_inspecting_only_a_prefix_is_caught_at_the_declared_size(bench_file):
    path = bench_file(PREFIX)
    found = fuzz(path, "sniff_prefix")
    assert found.status == NOT_EQUIVALENT, found
    assert fuzz(path, "control_encode").status == EQUIVALENT


def test_integers_at_the_machine_width_limits_expose_an_overflow(bench_file):
    found = fuzz(bench_file(PACK), "packed")
    assert found.status == NOT_EQUIVALENT, found
    assert "(the reference returned a value)" in found.difference  # not garbage: a valid id past 64 bits


def test_lengths_at_powers_of_two_expose_an_off_by_one_in_the_last_chunk(bench_file):
    found = fuzz(bench_file(CHUNKS), "chunked")
    assert found.status == NOT_EQUIVALENT, found
