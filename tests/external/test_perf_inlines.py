"""Inlined functions resolved by perflab (perflab.profile.perf_inlines) from ``perf script --no-inline``,
against perf script's own ``--inline`` on the same real recordings: line for line the same, for
CPython's C (json.dumps: ascii_escape_unicode is inlined; libc's start-up has aliases and clones),
C++ (demangled without parameters, as perf shows them) and Rust (v0 names; an executable linked with
its code at another address than its file offset)."""

import shutil
import subprocess
import sys

import pytest
from support.native_programs import compile_cpp

from perflab.profile import perf_inlines

pytestmark = pytest.mark.skipif(
    shutil.which("perf") is None or shutil.which("addr2line") is None,
    reason="needs Linux perf and GNU addr2line (.ci/run installs linux-perf; binutils comes with the compilers)",
)

JSON_DUMPS = (
    "import json, time\n"
    "data = {f'k{i}': ['v\\u00e9 %d' % j for j in range(20)] for i in range(50)}\n"
    "end = time.perf_counter() + 0.3\n"
    "while time.perf_counter() < end:\n"
    "    json.dumps(data)\n"
)
RUST = """
use std::collections::HashMap;
#[inline(never)]
fn count(n: u64) -> u64 {
    let mut m: HashMap<u64, u64> = HashMap::new();
    for i in 0..n { *m.entry(i % 1000).or_insert(0) += i; }
    m.values().sum()
}
fn main() {
    let n: u64 = std::env::args().nth(1).unwrap().parse().unwrap();
    let texts: Vec<String> = (0..n / 10).map(|i| format!("{i}")).collect();
    println!("{} {}", count(n), texts.len());
}
"""


def _program(kind: str, directory) -> list[str]:
    if kind == "python":
        return [sys.executable, "-c", JSON_DUMPS]
    if kind == "c++":
        return [str(compile_cpp("split", directory, "-g")), "2000000"]
    rustc = shutil.which("rustc")
    if rustc is None:
        pytest.skip("needs rustc (cargo's compiler)")
    (directory / "count.rs").write_text(RUST)
    subprocess.run([rustc, "-O", "-g", "-o", directory / "count", directory / "count.rs"], check=True)
    return [str(directory / "count"), "2000000"]


@pytest.mark.parametrize("kind", ["python", "c++", "rust"])
def test_the_inlined_frames_are_perf_scripts_own(tmp_path, kind):
    data = tmp_path / "perf.data"
    subprocess.run(
        ["perf", "record", "-q", "-e", "cpu-clock", "-F", "1000", "--call-graph", "dwarf,16384", "-o", data]
        + ["--", *_program(kind, tmp_path)],
        check=True,
        capture_output=True,
    )
    script = ["perf", "script", "-i", data, "-F", "comm,tid,ip,sym,dso"]
    perfs = subprocess.run(script, check=True, capture_output=True, text=True).stdout
    plain = subprocess.run([*script, "--no-inline"], check=True, capture_output=True, text=True).stdout
    assert "(inlined)" in perfs and "(inlined)" not in plain  # the recording has inlined frames to find
    assert perf_inlines.with_inlined(plain) == perfs
    # Read again (a profile's next run), nothing is asked again: each library's addr2line answered once.
    libraries = dict(perf_inlines._LIBRARIES)
    asked = {path: len(library.known) for path, library in libraries.items()}
    assert perf_inlines.with_inlined(plain) == perfs
    assert libraries == perf_inlines._LIBRARIES and {p: len(lib.known) for p, lib in libraries.items()} == asked
