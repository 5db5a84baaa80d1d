"""The ``benchmark`` fixture; registered by perflab.pytest_plugin.plugin only when perflab provides it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from perflab.pytest_plugin.benchmark_api import BenchmarkFixture

# The name the plugin registers the session under (perflab.pytest_plugin.plugin), where the fixture finds it.
SESSION_PLUGIN = "perflab-benchmark-session"


@pytest.fixture
def benchmark(request: pytest.FixtureRequest) -> Iterator[BenchmarkFixture]:
    """Time a function with perflab: ``benchmark(fn, *args)``, ``benchmark.pedantic(...)``,
    ``benchmark.compare({"a": fa, "b": fb}, *args)``, ``await benchmark(coroutine_fn)``."""
    session = request.config.pluginmanager.get_plugin(SESSION_PLUGIN)
    assert session is not None, "perflab's pytest plugin registers its session at start-up"
    if session.skip:
        pytest.skip("benchmarks are skipped (--benchmark-skip was used)")
    marker = request.node.get_closest_marker("benchmark")
    yield session.fixture_for(request.node, dict(marker.kwargs) if marker else {})


@pytest.fixture
def benchmark_weave() -> None:
    """pytest-benchmark's aspectlib fixture: refused with one line (the test fails, naming it)."""
    from perflab.pytest_plugin.benchmark_api import WEAVE_REFUSED

    pytest.fail(WEAVE_REFUSED, pytrace=False)
