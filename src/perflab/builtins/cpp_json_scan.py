"""C++ streaming JSON scanner, two variants on twitter.json, whole and in chunks (needs g++).

Case study 6 of perflab (docs/case-studies.md): a streaming C++ JSON parser measured in MB/s on
twitter.json, where two lessons mattered as much as the speedup: two numbers are comparable only
when they measure the same work ("parse only" vs "the whole program"), and a streaming parser
must give the same answer however its input is split. perflab builds native/json_scan.cpp with
g++ (once, cached) and runs each contender as a program on the checked twitter.json:

- ``simple``: a byte-at-a-time state machine over the whole document (the reference);
- ``fast``: the same machine, jumping through strings with memchr (SIMD in libc);
- ``fast_chunks_4k`` and ``simple_chunks_7``: fed in chunks of 4096 and 7 bytes, state carried
  across boundaries: equivalent to the whole-document scan;
- ``fast_chunks_forgetful``: the classic streaming bug on purpose (a number cut by a chunk boundary
  is counted twice): NOT EQUIVALENT, with the first difference.

The table shows each process's time and MB/s; the processes table beside it shows the scan alone
("inner", the program's own timing printed on stderr), so that the scan's speedup and the whole
program's are never confused.
"""

from pathlib import Path

import perflab
from perflab.bench import native_build
from perflab.builtins.data import json_document

SOURCE = Path(__file__).parent / "native" / "json_scan.cpp"
SCAN_ONLY = perflab.InnerMetric(r"scan: ([0-9]+) ns", unit="ns", stream="stderr")

bench = perflab.Benchmark(
    "cpp_json_scan", description="C++ streaming JSON scanner on twitter.json, whole and in chunks", compare="json"
)


def scanner():
    """g++ -O2 native/json_scan.cpp, built once per source and cached (perflab.bench.native_build)."""
    return native_build.gxx(SOURCE, "json_scan")


@bench.case(bytes=len)
def TWITTER():
    return json_document("twitter.json")  # bytes, checked against SHA256SUMS; given as a file


for name, arguments in (
    ("simple", ["simple"]),
    ("fast", ["fast"]),
    ("fast_chunks_4k", ["fast", "--chunk", "4096"]),
    ("simple_chunks_7", ["simple", "--chunk", "7"]),
    ("fast_chunks_forgetful", ["fast", "--chunk", "4096", "--forget-state"]),
):
    bench.command(name, [*arguments, "{input}"], build=scanner, inner=SCAN_ONLY)
