"""uuid4: random request ids as strings; stdlib uuid.uuid4() (OS randomness) vs faster generators.

Case study 5 of perflab (docs/case-studies.md): a packet-processing system found OS randomness
for UUIDs in its hot path. One call makes ``n`` random (version 4) UUIDs in their canonical text
form, the way a service tags requests; throughput is in UUIDs/s.

Not for secrets: uuid.uuid4() reads os.urandom(16). ``random.getrandbits`` is a Mersenne Twister
whose future output can be predicted from past output, so ids made with it must never act as
tokens, session ids or anything an attacker must not guess. uuid-utils and fastuuid use Rust
random generators; check their documentation before relying on them for secrets (the
``secrets`` module is the stdlib's answer for tokens).

Equivalence cannot be equality here (every call gives new random ids), so the benchmark declares a
property comparator: each output is a list of ``n`` distinct canonical UUID strings of version 4
and RFC 4122 variant, none of them equal to the reference's.
"""

import random
import uuid

import perflab


def random_uuid_strings(reference, output):
    """The properties a version-4 UUID generator must have (see the module docstring)."""
    if not isinstance(output, list) or len(output) != len(reference):
        raise AssertionError(
            f"expected a list of {len(reference)} UUID strings, got {type(output).__name__}"
            f" of length {len(output) if hasattr(output, '__len__') else '?'}"
        )
    for text in output:
        if not isinstance(text, str):
            raise AssertionError(f"{text!r} is a {type(text).__name__}, expected str")
        try:
            value = uuid.UUID(text)
        except ValueError:
            raise AssertionError(f"{text!r} is not a UUID") from None
        if str(value) != text:
            raise AssertionError(f"{text!r} is not in canonical form {str(value)!r}")
        if value.version != 4 or value.variant != uuid.RFC_4122:
            raise AssertionError(
                f"{text} has version {value.version} and variant {value.variant!r},"
                " expected version 4 and the RFC 4122 variant"
            )
    if len(set(output)) != len(output):
        raise AssertionError(f"only {len(set(output))} distinct ids among {len(output)}")
    if set(output) & set(reference):
        raise AssertionError("some ids equal the reference's: the generator is not random")
    return True


bench = perflab.Benchmark(
    "uuids",
    description="Generate n random version-4 UUIDs as canonical strings",
    compare=random_uuid_strings,
)


@bench.strategy  # perflab compare also checks other batch sizes
def batch_sizes(st):
    return st.integers(min_value=0, max_value=64)


@bench.case(items=lambda n: n)
def ONE():
    return 1


@bench.case(items=lambda n: n)
def THOUSAND():
    return 1000


@bench.contender(reference=True)
def stdlib_uuid4(n):
    """uuid.uuid4(): 16 bytes from os.urandom (safe for secrets)."""
    return [str(uuid.uuid4()) for _ in range(n)]


@bench.contender
def getrandbits(n):
    """uuid.UUID(int=random.getrandbits(128), version=4): Mersenne Twister, NOT for secrets."""
    return [str(uuid.UUID(int=random.getrandbits(128), version=4)) for _ in range(n)]


@bench.contender(setup=True)
def uuid_utils():
    """uuid-utils (Rust)."""
    import uuid_utils

    def generate(n):
        return [str(uuid_utils.uuid4()) for _ in range(n)]

    return generate


@bench.contender(setup=True)
def fastuuid():
    """fastuuid (Rust)."""
    import fastuuid

    def generate(n):
        return [str(fastuuid.uuid4()) for _ in range(n)]

    return generate
