"""AES-CTR: pyperformance's crypto_pyaes (23,000 bytes, encrypt + decrypt), pure-Python pyaes vs cryptography.

Case study 3 of perflab (docs/case-studies.md). One call encrypts the message with a fresh
AES-128-CTR cipher, then decrypts the ciphertext with another fresh one, as pyperformance does.
Throughput counts the bytes that went through the cipher (message + ciphertext).

The trap this benchmark exists for: pyaes' CTR counter starts at 1 (``pyaes.Counter()``), so a
replacement that uses an all-zero IV encrypts to different bytes. A round-trip check
(decrypt(encrypt(m)) == m) passes anyway; comparing the ciphertexts does not. The comparator
below compares both: the ciphertext byte for byte, and the decrypted message.
"""

import perflab

MESSAGE = b"This is a test. What could possibly go wrong? " * 500  # 23,000 bytes
KEY = b"\xa1\xf6%\x8c\x87}_\xcd\x89dHE8\xbf\xc9,"  # 128-bit key, pyperformance's
# pyaes' default counter: a 128-bit big-endian block counter that starts at 1.
FIRST_COUNTER_BLOCK = (1).to_bytes(16, "big")


def same_ciphertext(reference, output):
    """Outputs are (ciphertext, decrypted); both must match the reference's, byte for byte."""
    expected_ciphertext, expected_plain = reference
    ciphertext, plain = output
    if ciphertext != expected_ciphertext:
        index = next(
            (i for i, (a, b) in enumerate(zip(ciphertext, expected_ciphertext)) if a != b),
            min(len(ciphertext), len(expected_ciphertext)),
        )
        raise AssertionError(
            f"ciphertext differs from byte {index} on (lengths {len(expected_ciphertext)} "
            f"and {len(ciphertext)}): another key, mode or initial counter?"
        )
    if plain != expected_plain:
        raise AssertionError("decryption does not give the message back")
    return True


bench = perflab.Benchmark(
    "crypto_aes",
    description="AES-128-CTR encrypt then decrypt 23,000 bytes",
    compare=same_ciphertext,
)


@bench.strategy  # perflab compare also checks messages it generates (any length, any bytes)
def messages(st):
    return st.binary(max_size=4096)


@bench.case(bytes=2 * len(MESSAGE))  # encrypted once, decrypted once
def PYPERF_23000():
    return MESSAGE


@bench.contender(setup=True, reference=True)
def pyaes():
    """pyaes: AES in pure Python (what pyperformance measures)."""
    import pyaes

    def encrypt_decrypt(message):
        ciphertext = pyaes.AESModeOfOperationCTR(KEY).encrypt(message)
        decrypted = pyaes.AESModeOfOperationCTR(KEY).decrypt(ciphertext)
        return ciphertext, decrypted

    return encrypt_decrypt


@bench.contender(setup=True)
def cryptography():
    """cryptography: OpenSSL (AES-NI where the CPU has it), counter block set to pyaes' 1."""
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    def cipher():
        return Cipher(algorithms.AES(KEY), modes.CTR(FIRST_COUNTER_BLOCK))

    def encrypt_decrypt(message):
        encryptor = cipher().encryptor()
        ciphertext = encryptor.update(message) + encryptor.finalize()
        decryptor = cipher().decryptor()
        decrypted = decryptor.update(ciphertext) + decryptor.finalize()
        return ciphertext, decrypted

    return encrypt_decrypt
