"""Fresh corpus: a 64-bit checksum of record ids. Packing into fixed-width integers overflows
past 2**63; the declared ids are small."""

import struct

import perflab

bench = perflab.Benchmark("checksums", description="Sum of record ids modulo 2**64")


@bench.case
def IDS():
    return [1204, 99812, 7, 300004, 4411, 52]


@bench.contender(reference=True)
def python_ints(ids):
    """sum(ids) % 2**64"""
    return sum(ids) % (1 << 64)


@bench.contender
def packed_signed(ids):
    """pack as signed 64-bit, reinterpret unsigned: raises past 2**63"""
    raw = struct.pack(f"<{len(ids)}q", *ids)
    return sum(struct.unpack(f"<{len(ids)}Q", raw)) % (1 << 64)


@bench.contender
def int32_accumulator(ids):
    """accumulate like C int32: wraps past 2**31"""
    total = 0
    for value in ids:
        total = (total + value + 2**31) % 2**32 - 2**31
    return total % (1 << 64)


@bench.contender
def masked_each(ids):
    """control: mask each id to 64 bits, then sum"""
    return sum(value & ((1 << 64) - 1) for value in ids) % (1 << 64)
