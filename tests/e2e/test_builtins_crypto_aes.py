"""crypto_aes built-in: cryptography with pyaes' counter gives the same ciphertext; the all-zero
IV of case study 3 round-trips but is caught by comparing ciphertexts."""

import pytest
from support.builtin_checks import perflab_run, with_wrong_contender

pytest.importorskip("pyaes")
pytest.importorskip("cryptography")


def test_cryptography_encrypts_to_the_same_bytes_as_pyaes(tmp_path):
    code, verdicts = perflab_run(tmp_path, "crypto_aes")
    assert verdicts[("PYPERF_23000", "pyaes")]["status"] == "reference"
    assert verdicts[("PYPERF_23000", "cryptography")]["status"] == "equivalent"


def test_a_zero_iv_round_trips_but_is_not_equivalent(tmp_path):
    path = with_wrong_contender(
        tmp_path,
        "crypto_aes",
        """
@bench.contender(setup=True)
def zero_iv():
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    def encrypt_decrypt(message):
        encryptor = Cipher(algorithms.AES(base.KEY), modes.CTR(bytes(16))).encryptor()
        ciphertext = encryptor.update(message) + encryptor.finalize()
        decryptor = Cipher(algorithms.AES(base.KEY), modes.CTR(bytes(16))).decryptor()
        decrypted = decryptor.update(ciphertext) + decryptor.finalize()
        assert decrypted == message  # the round trip that let the bug through
        return ciphertext, decrypted

    return encrypt_decrypt
""",
    )
    code, verdicts = perflab_run(tmp_path, path, "--contender", "zero_iv")
    assert code == 1
    verdict = verdicts[("PYPERF_23000", "zero_iv")]
    assert verdict["status"] == "not equivalent"
    assert verdict["difference"].startswith("ciphertext differs from byte 0")
