"""Broken optimizations of AES-128-CTR (pyaes is the reference): the counter starts elsewhere.

pyaes' CTR counter block starts at 1. Starting it at 0 encrypts to other bytes, and reusing one
cipher object across calls (to save the key schedule) continues the counter from the previous
message. Both still decrypt their own ciphertext, so a round-trip check passes: the comparator
compares the ciphertexts. The reused cipher is right on the first call, so a single declared
case cannot see it.
"""

import perflab

KEY = b"\xa1\xf6%\x8c\x87}_\xcd\x89dHE8\xbf\xc9,"
FIRST_COUNTER_BLOCK = (1).to_bytes(16, "big")  # pyaes.Counter() starts at 1


def same_ciphertext(reference, output):
    """Outputs are (ciphertext, decrypted): both must equal the reference's."""
    if output[0] != reference[0]:
        raise AssertionError(f"ciphertext differs: {output[0][:16].hex()} != {reference[0][:16].hex()}")
    if output[1] != reference[1]:
        raise AssertionError("decryption does not give the message back")
    return True


bench = perflab.Benchmark("aes_ctr", description="AES-128-CTR encrypt then decrypt", compare=same_ciphertext)


@bench.case
def MESSAGE():
    return b"This is a test. What could possibly go wrong? " * 20


@bench.case
def SHORT():
    return b"attack at dawn"


@bench.strategy
def messages(st):
    return st.binary(max_size=64)


@bench.contender(setup=True, reference=True)
def pyaes():
    """pyaes, a fresh cipher per message."""
    import pyaes

    def encrypt_decrypt(message):
        ciphertext = pyaes.AESModeOfOperationCTR(KEY).encrypt(message)
        return ciphertext, pyaes.AESModeOfOperationCTR(KEY).decrypt(ciphertext)

    return encrypt_decrypt


def cryptography_ctr(counter_block):
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    def encrypt_decrypt(message):
        encryptor = Cipher(algorithms.AES(KEY), modes.CTR(counter_block)).encryptor()
        ciphertext = encryptor.update(message) + encryptor.finalize()
        decryptor = Cipher(algorithms.AES(KEY), modes.CTR(counter_block)).decryptor()
        return ciphertext, decryptor.update(ciphertext) + decryptor.finalize()

    return encrypt_decrypt


@bench.contender(setup=True)
def cryptography_zero_iv():
    """cryptography (OpenSSL) with the customary all-zero IV: the counter starts at 0."""
    return cryptography_ctr(bytes(16))


@bench.contender(setup=True)
def pyaes_reused_cipher():
    """pyaes with one cipher per worker (no key schedule per call): the counter carries on."""
    import pyaes

    encryptor, decryptor = pyaes.AESModeOfOperationCTR(KEY), pyaes.AESModeOfOperationCTR(KEY)

    def encrypt_decrypt(message):
        ciphertext = encryptor.encrypt(message)
        return ciphertext, decryptor.decrypt(ciphertext)

    return encrypt_decrypt


@bench.contender(setup=True, description="control: cryptography with pyaes' counter block, correct")
def cryptography():
    return cryptography_ctr(FIRST_COUNTER_BLOCK)
