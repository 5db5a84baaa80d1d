"""Inlined C functions in ``perf script``'s stacks, resolved by one long-lived addr2line per library.

perf script names the functions inlined at each address itself (``--inline``, its default) by
starting GNU addr2line for every library of the recording, again in every ``perf script``: for a
CPython 3.13 ``-X perf_jit`` recording that is hundreds of processes (one per jitted trampoline
file, which has no debugging information at all) and libpython's DWARF parsed anew each run,
about 1 s of a run's reading here against 0.2 s for ``perf script --no-inline``. This module
gives the same lines from ``--no-inline``'s output: one addr2line per library (not per run),
kept running for the process's life, and each address asked once.

perf's rule, kept line for line (tools/perf/util/srcline.c): an address's frames are addr2line's
records, innermost first, the last one the function holding the address; a record named as the
symbol perf found is printed as that symbol with its library, any other as ``NAME (inlined)``
(so a compiler clone, ``dictresize.isra.0``, is shown by its source name ``dictresize``, as
perf shows it; C++ and Rust names are demangled as perf demangles them). Frames without a symbol,
in the kernel, without a library file or in jitted code are left alone.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import re
import shutil
import struct
import subprocess
import threading

_FRAME = re.compile(r"^(?P<indent>\s*)(?P<ip>[0-9a-f]+) (?P<symbol>.*?) \((?P<dso>/[^()]*)\)$")
# The files perf inject --jit writes for jitted code (CPython's trampolines): no debugging information.
_JITTED = re.compile(r"/jitted-\d+-\d+\.so$")
_RECORD = re.compile(r"^0x[0-9a-f]+$")  # addr2line -a: the address that begins an answer
# A Rust v0 crate's disambiguator after its name (core[c1f1a4ba060b9bfa], not <[f32]>), a legacy hash
_RUST_DETAIL = re.compile(r"(?<=\w)\[[0-9a-f]{5,16}\]|::h[0-9a-f]{16}$")
_END = 0  # asked after a batch: its answer marks the batch's end (no frame lies at address 0)
_UNKNOWN = {"??", "[unknown]"}


def with_inlined(text: str) -> str:
    """``perf script --no-inline -F ...,ip,sym,dso`` output with the inlined frames perf script
    would have printed without ``--no-inline``."""
    lines = text.split("\n")
    frames = [_FRAME.match(line) for line in lines]
    wanted: dict[str, set[int]] = {}
    for frame in frames:
        if frame and frame["symbol"] not in _UNKNOWN and not _JITTED.search(frame["dso"]):
            wanted.setdefault(frame["dso"], set()).add(int(frame["ip"], 16))
    chains = {dso: _library(dso).functions(addresses) for dso, addresses in wanted.items()}
    shown = []
    for line, frame in zip(lines, frames):
        functions = chains[frame["dso"]].get(int(frame["ip"], 16)) if frame and frame["dso"] in chains else None
        if not frame or not functions:
            shown.append(line)
            continue
        head = f"{frame['indent']}{frame['ip']} "
        shown += [
            f"{head}{name} ({frame['dso']})" if name == frame["symbol"] else f"{head}{name} (inlined)"
            for name in functions
        ]
    return "\n".join(shown)


class _Library:
    """One library's addr2line, and the functions it gave for each address asked."""

    def __init__(self, path: str, identity: tuple[int, ...]):
        self.identity = identity
        self.text_offset = _text_offset(path)
        self.known: dict[int, tuple[str, ...]] = {}
        self._lock = threading.Lock()
        addr2line = shutil.which("addr2line")
        self._process = (
            subprocess.Popen(
                [addr2line, "-e", path, "-a", "-i", "-f"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
            )
            if addr2line
            else None
        )

    def functions(self, addresses: set[int]) -> dict[int, tuple[str, ...]]:
        """Each address's functions, innermost first (none: addr2line knows nothing of it)."""
        with self._lock:  # (profiles read in threads share the process)
            new = sorted(addresses - self.known.keys())
            if new and self._process is not None:
                self.known.update(self._ask(new))
            return {address: self.known.get(address, ()) for address in addresses}

    def _ask(self, addresses: list[int]) -> dict[int, tuple[str, ...]]:
        process = self._process
        assert process is not None and process.stdin is not None and process.stdout is not None
        # perf prints an address as an offset in the file; addr2line takes it as the code's address
        asked = {address + self.text_offset: address for address in addresses}
        stdin, batch = process.stdin, "".join(f"{address:#x}\n" for address in [*asked, _END])

        def write() -> None:  # by a thread while this one reads: a batch's answers can outgrow the pipe
            with contextlib.suppress(OSError):  # addr2line gone: the reading below sees it end
                stdin.write(batch)
                stdin.flush()

        writer = threading.Thread(target=write)
        writer.start()
        answers: dict[int, list[str]] = {}
        current: list[str] = []
        while True:
            line = process.stdout.readline()
            if not line:  # addr2line is gone: what it answered stands, the rest is left alone
                self._process = None
                break
            if not _RECORD.match(line):
                current.append(line.rstrip("\n"))
            elif int(line, 16) == _END:  # the last answer: the end marker's two lines ("??", "??:0")
                process.stdout.readline(), process.stdout.readline()
                break
            else:
                current = answers.setdefault(asked.get(int(line, 16), -1), [])
        writer.join()
        # An answer is a function and its file:line per frame, innermost first.
        names = {address: [name for name in lines[0::2] if name not in _UNKNOWN] for address, lines in answers.items()}
        readable = _demangled({name for chain in names.values() for name in chain})
        return {address: tuple(readable.get(name, name) for name in chain) for address, chain in names.items()}

    def close(self) -> None:
        if self._process is not None:
            self._process.communicate()  # (closes its input: addr2line ends)
            self._process = None


def _text_offset(path: str) -> int:
    """What perf adds to a file offset to ask addr2line (perf's ``dso->text_offset``): the
    ``.text`` section's address less its offset in the file; 0 for most libraries, not for
    executables linked by lld (Rust's)."""
    try:
        with open(path, "rb") as file:
            header = file.read(64)
            if header[:4] != b"\x7fELF":
                return 0
            wide, order = header[4] == 2, "<" if header[5] == 1 else ">"
            table_at = struct.unpack_from(order + ("Q" if wide else "I"), header, 0x28 if wide else 0x20)[0]
            size, count, names_index = struct.unpack_from(order + "HHH", header, 0x3A if wide else 0x2E)
            file.seek(table_at)
            table = file.read(size * count)
            # Each section header: name, type, flags, address, offset, size.
            sections = [
                struct.unpack_from(order + ("IIQQQQ" if wide else "IIIIII"), table, i * size) for i in range(count)
            ]
            file.seek(sections[names_index][4])
            names = file.read(sections[names_index][5])
        for name, _, _, address, offset, _ in sections:
            if names[name : names.index(b"\0", name)] == b".text":
                return address - offset
    except (OSError, struct.error, ValueError, IndexError):  # not an ELF file perf could read either
        pass
    return 0


def _demangled(names: set[str]) -> dict[str, str]:
    """C++ and Rust names as perf shows its symbols: demangled without the parameters' types
    (``split::heavy``, not ``split::heavy(long)``), by binutils' c++filt, as perf demangles."""
    mangled = sorted(name for name in names if name.startswith(("_Z", "_R")))
    cxxfilt = shutil.which("c++filt")
    if not mangled or cxxfilt is None:
        return {}
    done = subprocess.run([cxxfilt, "-p"], input="\n".join(mangled) + "\n", capture_output=True, text=True, check=False)
    readable = done.stdout.splitlines()
    if len(readable) != len(mangled):
        return {}
    # c++filt is verbose about Rust where perf is not: no crate disambiguators, no legacy hash.
    return {name: _RUST_DETAIL.sub("", shown) for name, shown in zip(mangled, readable)}


_LIBRARIES: dict[str, _Library] = {}


def _library(path: str) -> _Library:
    """The library's addr2line, started anew when the file changed (a rebuilt extension)."""
    try:
        facts = os.stat(path)
        identity: tuple[int, ...] = (facts.st_dev, facts.st_ino, facts.st_size, facts.st_mtime_ns)
    except OSError:
        identity = ()
    library = _LIBRARIES.get(path)
    if library is None or library.identity != identity:
        if library is not None:
            library.close()
        library = _LIBRARIES[path] = _Library(path, identity)
    return library


@atexit.register
def _close_all() -> None:
    for library in _LIBRARIES.values():
        library.close()
