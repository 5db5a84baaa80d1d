"""Rust UUIDs: 16 bytes of OS randomness per id vs a generator seeded once per thread (needs cargo).

Case study 5 of perflab (docs/case-studies.md), the Rust side: the service drew every request id
from the operating system's random source; a thread-local generator seeded once from it
(xoshiro256** here, as fast generators in rand-style crates) removed a syscall per id. Each run
makes N version-4 UUIDs and prints a summary that must agree (how many, all distinct, all
version 4 with the RFC 4122 variant): random ids are never equal, their properties are. Not for
secrets: the thread-local generator's state can be recovered from its output.
"""

import perflab
from perflab.builtins.rust_substring import rust_lab

GENERATION_ONLY = perflab.InnerMetric(r"phase: ([0-9]+) ns", unit="ns", stream="stderr")
IDS = 100_000

bench = perflab.Benchmark("rust_uuids", description="OS randomness vs a thread-local generator for UUIDs, in Rust")


@bench.case(items=IDS)
def HUNDRED_THOUSAND():
    return str(IDS)


bench.command("os_random", ["uuid-os"], input="arg", build=rust_lab, inner=GENERATION_ONLY)
bench.command("thread_local", ["uuid-thread"], input="arg", build=rust_lab, inner=GENERATION_ONLY)
