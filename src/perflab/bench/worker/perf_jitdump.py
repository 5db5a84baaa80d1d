"""A perf jitdump for CPython 3.12's ``-X perf`` trampolines, so that perf unwinds through Python
calls as it does under 3.13's ``-X perf_jit``. Standard library only.

Under ``-X perf`` each Python function runs through an 11-byte copy of the interpreter's trampoline
in anonymous memory that only ``/tmp/perf-PID.map`` names; nothing describes its stack frame, so
``perf record --call-graph dwarf`` stops at the innermost Python function. This module gives perf
what 3.13 gives it: a ``/tmp/jit-PID.dump`` (perf's jitdump format: linux
tools/perf/Documentation/jitdump-specification.txt) mapped executable at start-up, where perf
record sees it, and, before the worker exits, one code-load record per arena of trampolines with
the unwinding information (an ``.eh_frame`` with one FDE per trampoline and its
``.eh_frame_hdr``) that ``perf inject --jit`` puts beside the code in the ELF file it writes.

One record per arena, not per trampoline as 3.13 writes them: perf reads the unwinding table from
the address range its injected mapping covers (the code, then the unwinding data), and 3.12 packs
its trampolines 11 bytes apart, so per-trampoline mappings would cover each other's tables. The
arena's mapping is named ``ARENA_PREFIX`` + its address; perflab names each frame in it from the
perf map (perflab.profile.perf_trampolines). x86-64 only: the CFA rules below are those of its
trampoline, checked byte for byte before anything is described.
"""

from __future__ import annotations

import atexit
import ctypes
import mmap
import os
import platform
import struct
import sys
import threading
import time

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: see perflab.bench's docstring
if TYPE_CHECKING:
    from typing import BinaryIO

ENV = "PERFLAB_PERF_JITDUMP"  # set by perflab for a 3.12 worker under perf record
# 3.12's _Py_trampoline_func_start on x86-64: sub $8,%rsp; call *%rcx; add $8,%rsp; ret
TRAMPOLINE = bytes.fromhex("4883ec08ffd14883c408c3")
# The CFA after each instruction: rsp+8 at entry (the CIE's rule), rsp+16 once `sub` has run (offset 4),
# rsp+8 again once `add` has (offset 10). DW_CFA_advance_loc(4), DW_CFA_def_cfa_offset(16), ...
CFA_PROGRAM = bytes([0x40 | 4, 0x0E, 16, 0x40 | 6, 0x0E, 8])
ARENA_PREFIX = "py::[perflab trampolines at "  # + hex address + "]"
_MAGIC, _VERSION, _EM_X86_64 = 0x4A695444, 1, 62
_CODE_LOAD, _UNWINDING_INFO = 0, 4
_HEADER = struct.Struct("<IIIIIIQQ")  # magic, version, header size, ELF machine, pad, pid, timestamp, flags
_RECORD = struct.Struct("<IIQ")  # id, total size, timestamp
_CODE_LOAD_BODY = struct.Struct("<IIQQQQ")  # pid, tid, vma, code address, code size, code index
_UNWINDING_BODY = struct.Struct("<QQQ")  # unwinding size, eh_frame_hdr size, mapped size
# eh_frame_hdr encodings (DW_EH_PE_*): the eh_frame pointer pc-relative, the count as is, the table
# relative to the header, all 4-byte signed (DW_EH_PE_sdata4 0x0b, pcrel 0x10, datarel 0x30, udata4 0x03)
_PCREL_SDATA4, _UDATA4, _DATAREL_SDATA4 = 0x1B, 0x03, 0x3B
Entry = tuple[int, int, str]  # a trampoline: address, size, perf map name


def supported() -> bool:
    """Whether this interpreter runs 3.12's -X perf trampoline that this module describes."""
    return sys.version_info[:2] == (3, 12) and sys.platform == "linux" and platform.machine() == "x86_64"


class JitDump:
    """``/tmp/jit-PID.dump``, mapped as perf record needs to see it; ``close`` describes the trampolines."""

    def __init__(self, directory: str = "/tmp"):
        self.pid = os.getpid()
        self.path = os.path.join(directory, f"jit-{self.pid}.dump")
        # The records' time: before any sample (CLOCK_MONOTONIC, perf record -k 1), so the code is mapped for all
        self.timestamp = time.monotonic_ns()
        self._file = open(self.path, "w+b")  # noqa: SIM115 -- kept open until close()
        self._file.write(
            _HEADER.pack(_MAGIC, _VERSION, _HEADER.size, _EM_X86_64, 0, self.pid, time.time_ns() // 1000, 0)
        )
        self._file.flush()
        # perf record notes executable mappings of jit-PID.dump files; perf inject --jit reads the file later
        self._mapping = mmap.mmap(self._file.fileno(), _HEADER.size, mmap.MAP_PRIVATE, mmap.PROT_READ | mmap.PROT_EXEC)

    def close(self) -> None:
        """Describe every trampoline the interpreter has made (its perf map lists them) and close the dump."""
        try:
            entries = trampolines(perf_map(self.pid))
            write_arenas(self._file, entries, self.pid, threading.get_native_id(), self.timestamp)
        finally:
            self._file.close()


def start() -> JitDump | None:
    """The dump, when perflab asked for one and this interpreter runs the trampoline it describes; it
    is completed as the worker exits, when every trampoline the operation used exists."""
    if not os.environ.get(ENV) or not supported() or not sys.is_stack_trampoline_active():  # type: ignore[attr-defined]
        return None
    dump = JitDump()
    atexit.register(dump.close)
    return dump


def perf_map(pid: int) -> str:
    """The perf map -X perf writes (and leaves behind): ``address size name``, in hex, a trampoline a line."""
    return f"/tmp/perf-{pid}.map"


def trampolines(path: str) -> list[Entry]:
    """A perf map's trampolines, by address (none if it cannot be read)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as lines:
            fields = [line.rstrip("\n").split(" ", 2) for line in lines]
    except OSError:
        return []
    return sorted((int(address, 16), int(size, 16), name) for address, size, name in (f for f in fields if len(f) == 3))


def arenas(entries: list[Entry]) -> list[list[Entry]]:
    """The trampolines in runs of adjacent ones (each run lies in one of the interpreter's arenas)."""
    runs: list[list[Entry]] = []
    for entry in sorted(entries):
        if runs and runs[-1][-1][0] + runs[-1][-1][1] == entry[0]:
            runs[-1].append(entry)
        else:
            runs.append([entry])
    return runs


def write_arenas(out: BinaryIO, entries: list[Entry], pid: int, tid: int, timestamp: int) -> None:
    """An unwinding-information record and a code-load record for every run of trampolines whose code is
    3.12's x86-64 trampoline. perf's injected mapping covers the code and then the unwinding information,
    so it must end before other code: where a run's mapping has no room for all of it, its latest
    trampolines are described (those of the operation, made after set-up), and stacks end at the others."""
    runs = arenas(entries)
    for index, run in enumerate(runs, start=1):
        start, end = run[0][0], run[-1][0] + run[-1][1]
        code = ctypes.string_at(start, end - start)
        if any(code[a - start : a - start + size] != TRAMPOLINE for a, size, _ in run):
            continue
        room = min([_mapping_end(start)] + [other[0][0] for other in runs if other[0][0] > start])
        described = _latest_fitting(run, room)
        if described:
            _write_run(out, described, pid, tid, timestamp, index)


def _latest_fitting(run: list[Entry], room: int) -> list[Entry]:
    """The longest tail of ``run`` whose code and unwinding information end by ``room``."""

    def fits(first: int) -> bool:
        start, end = run[first][0], run[-1][0] + run[-1][1]
        eh_frame, header = unwinding_info([a - start for a, _, _ in run[first:]], len(TRAMPOLINE), end - start)
        return start + _round_up(end - start, 8) + _round_up(len(eh_frame) + len(header), 16) <= room

    low, high = 0, len(run)  # the first trampoline of the longest tail that fits (len(run): none fits)
    while low < high:
        middle = (low + high) // 2
        if fits(middle):
            high = middle
        else:
            low = middle + 1
    return run[low:]


def _write_run(out: BinaryIO, run: list[Entry], pid: int, tid: int, timestamp: int, index: int) -> None:
    start, end = run[0][0], run[-1][0] + run[-1][1]
    code = ctypes.string_at(start, end - start)
    eh_frame, header = unwinding_info([a - start for a, _, _ in run], len(TRAMPOLINE), len(code))
    unwinding = eh_frame + header
    size = _round_up(_RECORD.size + _UNWINDING_BODY.size + len(unwinding), 8)
    out.write(_RECORD.pack(_UNWINDING_INFO, size, timestamp))
    out.write(_UNWINDING_BODY.pack(len(unwinding), len(header), _round_up(len(unwinding), 16)))
    out.write(unwinding.ljust(size - _RECORD.size - _UNWINDING_BODY.size, b"\0"))
    name = f"{ARENA_PREFIX}{start:x}]".encode() + b"\0"
    size = _RECORD.size + _CODE_LOAD_BODY.size + len(name) + len(code)
    out.write(_RECORD.pack(_CODE_LOAD, size, timestamp))
    out.write(_CODE_LOAD_BODY.pack(pid, tid, start, start, len(code), index) + name + code)


def unwinding_info(offsets: list[int], size: int, code_size: int) -> tuple[bytes, bytes]:
    """``.eh_frame`` (a CIE, then an FDE of ``CFA_PROGRAM`` for each trampoline at ``offsets`` in the
    code) and its ``.eh_frame_hdr`` (sorted lookup table), laid out as perf inject writes them: the
    code, padded to 8 bytes, then the eh_frame, then the header; addresses are relative to each other."""
    # CIE: id 0, version 1, "zR", code alignment 1, data alignment -8, return address column 16 (rip),
    # FDE addresses pc-relative; at entry the CFA is rsp+8 (DW_CFA_def_cfa r7 8) and rip is at CFA-8
    eh_frame = _entry(
        struct.pack("<IB", 0, 1) + b"zR\0" + bytes([1, 0x78, 16, 1, _PCREL_SDATA4, 0x0C, 7, 8, 0x80 | 16, 1])
    )
    code = _round_up(code_size, 8)  # where the eh_frame starts, from the code's start
    fdes = []
    for offset in offsets:
        at = len(eh_frame)  # the FDE's CIE pointer is at at + 4, its address field at at + 8
        eh_frame += _entry(struct.pack("<Iii", at + 4, offset - (code + at + 8), size) + b"\0" + CFA_PROGRAM)
        fdes.append(at)
    header = struct.pack("<BBBBiI", 1, _PCREL_SDATA4, _UDATA4, _DATAREL_SDATA4, -(len(eh_frame) + 4), len(offsets))
    for offset, at in zip(offsets, fdes):  # the table: (code address, FDE address) relative to the header
        header += struct.pack("<ii", offset - (code + len(eh_frame)), at - len(eh_frame))
    return eh_frame, header


def _entry(body: bytes) -> bytes:
    """A CIE or FDE: its length, then its body padded with DW_CFA_nop to a multiple of 8 bytes in all."""
    body = body.ljust(_round_up(len(body) + 4, 8) - 4, b"\0")
    return struct.pack("<I", len(body)) + body


def _mapping_end(address: int) -> int:
    """The end of the memory mapping holding ``address`` (the trampolines' arena), from /proc/self/maps."""
    with open("/proc/self/maps", encoding="ascii", errors="replace") as maps:
        for line in maps:
            low, _, high = line.split(" ", 1)[0].partition("-")
            if int(low, 16) <= address < int(high, 16):
                return int(high, 16)
    return address


def _round_up(value: int, multiple: int) -> int:
    return -(-value // multiple) * multiple
