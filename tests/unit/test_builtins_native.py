"""The native built-ins (perflab.builtins.NATIVE), built from the sources perflab ships: the C++
JSON scanner with g++, the Rust crate with cargo (its dependencies from crates.io, once)."""

from perflab import builtins


def test_the_native_builtins_are_listed_by_name():
    assert set(builtins.NATIVE) <= set(builtins.names())
