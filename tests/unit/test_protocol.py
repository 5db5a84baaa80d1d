"""The jobs' wire format (perflab.bench.protocol): the JSON perflab sends a worker, field by field and
in order, as workers of earlier versions read it (a --python interpreter may run another copy)."""

import json

import pytest

from perflab.bench import protocol

WHERE = ("b.py", "fast", ["/rev"])  # file, contender, sys_path


@pytest.mark.parametrize(
    "job, wire",
    [
        (
            protocol.check_job(*WHERE, "small", True, reference="slow"),
            '{"mode": "check", "file": "b.py", "contender": "fast", "sys_path": ["/rev"], "case": "small", '
            '"reference": "slow", "send_output": true}',
        ),
        (
            protocol.check_job(
                *WHERE,
                "small",
                False,
                expected=protocol.OutputEvent(event="output", pickled="P", input=None, shares=True),
            ),
            '{"mode": "check", "file": "b.py", "contender": "fast", "sys_path": ["/rev"], "case": "small", '
            '"expected": "P", "expected_input": null, "reference_shares": true, "send_output": false}',
        ),
        (
            protocol.output_job(*WHERE, "small"),
            '{"mode": "output", "file": "b.py", "contender": "fast", "sys_path": ["/rev"], "case": "small"}',
        ),
        (
            protocol.seed_job(*WHERE, {"small": "P"}),
            '{"mode": "seed", "file": "b.py", "contender": "fast", "sys_path": ["/rev"], "expected": {"small": "P"}}',
        ),
        (
            protocol.fuzz_job(*WHERE, "slow", 200, 0, None, 4.0),
            '{"mode": "fuzz", "file": "b.py", "contender": "fast", "reference": "slow", "examples": 200, "seed": 0, '
            '"sys_path": ["/rev"], "patterns": null, "generate_seconds": 4.0}',
        ),
        (protocol.describe_job("b.py", []), '{"mode": "describe", "file": "b.py", "sys_path": []}'),
        (protocol.packages_job(["json"], []), '{"mode": "packages", "modules": ["json"], "sys_path": []}'),
        (
            protocol.time_job(*WHERE, "small", loops=None, cpu=1, value_time=0.005, reference="slow"),
            '{"mode": "time", "file": "b.py", "contender": "fast", "sys_path": ["/rev"], "case": "small", '
            '"loops": null, "cpu": 1, "value_time": 0.005, "reference": "slow"}',
        ),
        (
            protocol.profile_job(
                *WHERE, "small", 0.005, 2.0, protocol.InProcessSampling(rate=200.0, mode="cpu", lines=False), None
            ),
            '{"mode": "profile", "file": "b.py", "case": "small", "contender": "fast", "sys_path": ["/rev"], '
            '"value_time": 0.005, "duration": 2.0, "inprocess": {"rate": 200.0, "mode": "cpu", "lines": false}, "cpu": null}',
        ),
        (
            protocol.count_job(*WHERE, "small", 100, 8, True),
            '{"mode": "count", "file": "b.py", "contender": "fast", "sys_path": ["/rev"], "case": "small", '
            '"loops": 100, "warmups": 8, "memory": true}',
        ),
        (
            protocol.allocations_job(*WHERE, "small", None, 0.02, 20, True),
            '{"mode": "allocations", "file": "b.py", "contender": "fast", "sys_path": ["/rev"], "case": "small", '
            '"loops": null, "value_time": 0.02, "warmups": 20, "native": true}',
        ),
    ],
    ids=lambda value: value["mode"] if isinstance(value, dict) else "",
)
def test_each_job_is_sent_as_before(job, wire):
    assert json.dumps(job) == wire
