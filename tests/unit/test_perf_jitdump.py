"""The perf jitdump a CPython 3.12 worker writes for its -X perf trampolines
(perflab.bench.worker.perf_jitdump), read back with struct as perf inject reads it, and the names
perflab gives the frames perf puts in an arena of trampolines (perflab.profile.perf_trampolines)."""

from __future__ import annotations

import ctypes
import io
import os
import struct
from pathlib import Path

import pytest

from perflab.bench.worker import perf_jitdump
from perflab.bench.worker.perf_jitdump import ARENA_PREFIX, TRAMPOLINE, JitDump, unwinding_info, write_arenas
from perflab.profile.perf_trampolines import ELF_TEXT_OFFSET, name_arena_frames

X86_64_RSP, X86_64_RIP = 7, 16


def cfa_rules(program: bytes, cfa: dict[int, tuple[int, int]], location: int = 0) -> dict[int, tuple[int, int]]:
    """The CFA (register, offset) from each location on, running a CFA program (the opcodes perf's
    unwinder meets in these entries: advance_loc, def_cfa, def_cfa_offset, offset, nop)."""
    rules = dict(cfa)
    register, offset = rules[max(rules)] if rules else (None, None)
    at = 0
    while at < len(program):
        opcode = program[at]
        if opcode >> 6 == 1:  # DW_CFA_advance_loc (code alignment 1)
            location += opcode & 0x3F
            at += 1
        elif opcode >> 6 == 2:  # DW_CFA_offset: a register saved at CFA - factor * 8
            at += 2
        elif opcode == 0x0C:  # DW_CFA_def_cfa register offset
            register, offset = program[at + 1], program[at + 2]
            at += 3
        elif opcode == 0x0E:  # DW_CFA_def_cfa_offset
            offset = program[at + 1]
            at += 2
        elif opcode == 0:  # DW_CFA_nop
            at += 1
            continue
        else:
            raise AssertionError(f"unexpected CFA opcode {opcode:#x}")
        rules[location] = (register, offset)  # type: ignore[assignment]
    return rules


def test_the_eh_frame_has_one_fde_per_trampoline_with_its_cfa_at_each_instruction():
    offsets, code_size = [0, 11, 22], 33
    eh_frame, header = unwinding_info(offsets, len(TRAMPOLINE), code_size)
    code = 40  # the code, padded to 8 bytes: where perf inject puts the eh_frame
    # CIE: length, id 0, version 1, "zR", code alignment 1, data alignment -8 (sleb 0x78), rip's column,
    # augmentation: FDE addresses pc-relative sdata4 (0x1b); then the CFA at entry: rsp+8, rip at CFA-8
    (cie_length,) = struct.unpack_from("<I", eh_frame)
    assert (cie_length + 4) % 8 == 0
    assert (
        eh_frame[4:20] == struct.pack("<IB", 0, 1) + b"zR\0" + bytes([1, 0x78, X86_64_RIP, 1, 0x1B]) + b"\x0c\x07\x08"
    )
    assert eh_frame[20:22] == bytes([0x80 | X86_64_RIP, 1])
    entry = cfa_rules(eh_frame[17 : 4 + cie_length], {})
    assert entry == {0: (X86_64_RSP, 8)}
    at, fdes = 4 + cie_length, []
    while at < len(eh_frame):
        length, cie_pointer, pc_begin, pc_range, augmentation = struct.unpack_from("<IIiiB", eh_frame, at)
        assert (length + 4) % 8 == 0 and at + 4 - cie_pointer == 0  # back to the one CIE
        assert (pc_range, augmentation) == (len(TRAMPOLINE), 0)
        # sub $8,%rsp (4 bytes) moves the CFA to rsp+16, add $8,%rsp (at 6, 4 bytes) back to rsp+8
        rules = cfa_rules(eh_frame[at + 17 : at + 4 + length], entry)
        assert rules == {0: (X86_64_RSP, 8), 4: (X86_64_RSP, 16), 10: (X86_64_RSP, 8)}
        fdes.append((code + at + 8 + pc_begin, at))  # pc-relative: from the field, in offsets from the code
        at += 4 + length
    assert at == len(eh_frame)
    assert [address for address, _ in fdes] == offsets
    # eh_frame_hdr: version 1, the eh_frame pointer pc-relative, the count, the table relative to the header
    version, pointer_encoding, count_encoding, table_encoding, eh_frame_pointer, count = struct.unpack_from(
        "<BBBBiI", header
    )
    assert (version, pointer_encoding, count_encoding, table_encoding) == (1, 0x1B, 0x03, 0x3B)
    assert len(eh_frame) + 4 + eh_frame_pointer == 0 and count == len(offsets)
    table = list(struct.iter_unpack("<ii", header[12:]))
    assert [code + len(eh_frame) + start for start, _ in table] == offsets  # sorted by address
    assert [len(eh_frame) + fde for _, fde in table] == [at for _, at in fdes]


def read_records(dump: bytes) -> list[tuple[int, bytes]]:
    records, at = [], 0
    while at < len(dump):
        kind, size, _ = struct.unpack_from("<IIQ", dump, at)
        assert size >= 16
        records.append((kind, dump[at + 16 : at + size]))
        at += size
    assert at == len(dump)
    return records


def test_an_arena_is_described_by_unwinding_information_then_its_code():
    arena = ctypes.create_string_buffer(TRAMPOLINE * 3, 256)  # room after the code for its unwinding information
    start = ctypes.addressof(arena)
    entries = [(start + 11 * i, 11, f"py::f{i}:/x.py") for i in range(3)]
    out = io.BytesIO()
    write_arenas(out, entries, 1234, 5678, 99)
    (unwinding_kind, unwinding), (load_kind, load) = read_records(out.getvalue())
    assert (unwinding_kind, load_kind) == (4, 0)  # JIT_CODE_UNWINDING_INFO before its JIT_CODE_LOAD
    size, header_size, mapped = struct.unpack_from("<QQQ", unwinding)
    eh_frame, header = unwinding_info([0, 11, 22], 11, 33)
    assert (size, header_size, mapped) == (len(eh_frame) + len(header), len(header), -(-size // 16) * 16)
    assert unwinding[24 : 24 + size] == eh_frame + header
    pid, tid, vma, address, code_size, index = struct.unpack_from("<IIQQQQ", load)
    assert (pid, tid, vma, address, code_size, index) == (1234, 5678, start, start, 33, 1)
    name, _, code = load[40:].partition(b"\0")
    assert name.decode() == f"{ARENA_PREFIX}{start:x}]" and code == TRAMPOLINE * 3


def test_code_that_is_not_the_trampoline_is_not_described():
    other = ctypes.create_string_buffer(b"\x90" * 11, 256)
    out = io.BytesIO()
    write_arenas(out, [(ctypes.addressof(other), 11, "py::f:/x.py")], 1, 1, 0)
    assert out.getvalue() == b""


def test_where_the_unwinding_information_would_cover_other_code_the_latest_trampolines_are_described():
    # three trampolines, then another run at 130: 96 bytes after the third (its code padded to 16, then 68
    # bytes of unwinding information padded to 80) fit below it, 136 after the second do not
    arena = ctypes.create_string_buffer(TRAMPOLINE * 3 + bytes(130 - 33) + TRAMPOLINE, 512)
    start = ctypes.addressof(arena)
    entries = [(start + 11 * i, 11, f"py::f{i}:/x.py") for i in range(3)] + [(start + 130, 11, "py::g:/x.py")]
    out = io.BytesIO()
    write_arenas(out, entries, 1, 1, 0)
    loads = [struct.unpack_from("<IIQQQQ", body) for kind, body in read_records(out.getvalue()) if kind == 0]
    assert [(address - start, size) for _, _, _, address, size, _ in loads] == [(22, 11), (130, 11)]
    out = io.BytesIO()
    write_arenas(out, entries[:3], 1, 1, 0)
    assert len(read_records(out.getvalue())) == 2  # alone, the three fit
    out = io.BytesIO()
    write_arenas(out, entries[:3] + [(start + 40, 11, "py::h:/x.py")], 1, 1, 0)  # no room after any of them
    assert read_records(out.getvalue()) == []  # (nor is the code at 40 a trampoline)


def test_the_dump_starts_with_perfs_header_and_is_mapped_executable(tmp_path):
    dump = JitDump(str(tmp_path))
    try:
        maps = Path("/proc/self/maps").read_text().splitlines()
        assert any(line.endswith(dump.path) and line.split()[1].startswith("r-x") for line in maps)
    finally:
        dump.close()
    header = (tmp_path / f"jit-{os.getpid()}.dump").read_bytes()[:40]
    assert struct.unpack("<IIIIIIQQ", header)[:6] == (0x4A695444, 1, 40, 62, 0, os.getpid())


def test_no_dump_unless_perflab_asks_under_a_312_trampoline(monkeypatch):
    monkeypatch.delenv(perf_jitdump.ENV, raising=False)
    assert perf_jitdump.start() is None
    monkeypatch.setenv(perf_jitdump.ENV, "1")
    if not perf_jitdump.supported():  # perflab's own interpreter: not 3.12 on x86-64
        assert perf_jitdump.start() is None


@pytest.fixture
def perf_map(tmp_path):
    path = tmp_path / "perf-1.map"
    path.write_text("7f0000000000 b py::outer:/x.py\n7f000000000b b py::Inner.leaf:/x.py\n")
    return str(path)


def test_frames_in_an_arena_are_named_from_the_perf_map_by_address(perf_map):
    arena = f"{ARENA_PREFIX}7f0000000000] (/tmp/jitted-1-1.so)"
    script = (
        "python3.12 1\n"
        f"\t{ELF_TEXT_OFFSET + 11 + 5:x} {arena}\n"  # leaf's return address, less one
        f"\t{ELF_TEXT_OFFSET + 5:x} {arena}\n"
        f"\t{ELF_TEXT_OFFSET + 40:x} {arena}\n"  # past every trampoline: left as it is
        "\t1080 _start (/x/python3.12)\n"
    )
    named = name_arena_frames(script, perf_map).splitlines()
    assert named[1] == "\t90 py::Inner.leaf:/x.py (/tmp/jitted-1-1.so)"
    assert named[2] == "\t85 py::outer:/x.py (/tmp/jitted-1-1.so)"
    assert named[3:] == script.splitlines()[3:]
    assert name_arena_frames(script, "/no/such/perf.map") == script
