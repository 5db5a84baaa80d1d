"""Rust substring search: the memchr crate's memmem vs a byte-by-byte loop (needs cargo).

Case study 5 of perflab (docs/case-studies.md), the Rust packet-processing service: its flame
graphs pointed at a hand-written substring search, replaced by the ``memchr`` crate. perflab
builds native/rust_lab (a small crate shipped with perflab, dependencies pinned by its
Cargo.lock; the first build fetches them from crates.io) once and caches it, then counts the
non-overlapping occurrences of a needle in twitter.json with each variant. The processes table
shows the search alone ("inner", timed by the program) beside the whole process, which also
reads the file and starts up: the search's speedup is far larger than the program's.
"""

from pathlib import Path

import perflab
from perflab.bench import native_build
from perflab.builtins.data import json_document

CRATE = Path(__file__).parent / "native" / "rust_lab"
SEARCH_ONLY = perflab.InnerMetric(r"phase: ([0-9]+) ns", unit="ns", stream="stderr")

bench = perflab.Benchmark("rust_substring", description="memchr::memmem vs a naive loop, in Rust")


def rust_lab():
    """cargo build --release of native/rust_lab, once per source and cached (perflab.bench.native_build)."""
    return native_build.cargo(CRATE, "rust_lab")


@bench.case(bytes=len)
def TWITTER():
    return json_document("twitter.json")


bench.command("memchr", ["find-memchr", '"retweet_count"', "{input}"], build=rust_lab, inner=SEARCH_ONLY)
bench.command("naive", ["find-naive", '"retweet_count"', "{input}"], build=rust_lab, inner=SEARCH_ONLY)
