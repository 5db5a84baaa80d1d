"""perflab.bench.worker.integrity, perflab.bench.worker.derived_strategies and perflab.measure.timing_verdicts on their own, and the
error-behaviour and hash-seed checks in real worker processes."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.integrity_shared import shapes


@settings(max_examples=60, database=None, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_records_keep_their_keys_and_ints_their_magnitude(data):
    value = data.draw(shapes([{"name": "ada", "age": 36}]))
    assert value is None or (
        set(value) == {"name", "age"} and isinstance(value["name"], str) and abs(value["age"]) <= 2 * 36 + 10
    ), value
