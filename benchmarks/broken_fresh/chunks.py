"""Fresh corpus: chunked processing. Off by one where the length is a multiple of the chunk
size (a power of two); the declared cases are not."""

import perflab

bench = perflab.Benchmark("chunks", description="XOR checksum of a byte string")

CHUNK = 64


@bench.case
def PACKET():
    return bytes(range(200)) * 3  # 600 bytes


@bench.case
def SHORT():
    return b"hello, world"


@bench.contender(reference=True)
def byte_loop(data):
    """XOR of every byte"""
    checksum = 0
    for byte in data:
        checksum ^= byte
    return checksum


@bench.contender
def chunked(data):
    """XOR per 64-byte chunk: skips the last chunk when the length is a multiple of 64"""
    checksum = 0
    full = len(data) // CHUNK
    for start in range(0, full * CHUNK - (CHUNK if len(data) % CHUNK == 0 and full else 0), CHUNK):
        for byte in data[start : start + CHUNK]:
            checksum ^= byte
    for byte in data[full * CHUNK :]:
        checksum ^= byte
    return checksum


@bench.contender
def int_xor(data):
    """control: fold the bytes 8 at a time as ints, then fold the int"""
    checksum = 0
    padded = data + bytes(-len(data) % 8)
    for start in range(0, len(padded), 8):
        checksum ^= int.from_bytes(padded[start : start + 8], "little")
    result = 0
    while checksum:
        result ^= checksum & 0xFF
        checksum >>= 8
    return result
