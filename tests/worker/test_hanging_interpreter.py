"""A ``--python`` that never answers (a wrapper script that hangs) is stopped with everything it
started, and said in one line: subprocess.run's timeout killed only the script, left its child
running, and then waited on the child's open pipe far past the timeout."""

from __future__ import annotations

import os
import time

import pytest

from perflab.measure import ab_test, metadata


def test_a_hanging_interpreter_is_stopped_with_its_children_and_named(tmp_path, monkeypatch):
    pid_file = tmp_path / "child.pid"
    script = tmp_path / "python-wrapper"
    script.write_text(f"#!/bin/sh\nsleep 300 &\necho $! > {pid_file}\nwait\n")
    script.chmod(0o755)
    monkeypatch.setattr(metadata, "PROBE_TIMEOUT", 1.0)
    with pytest.raises(ab_test.CompareError) as raised:
        ab_test.resolve_python(str(script))
    said = str(raised.value)
    assert said == (
        f"--python {script}: {script} did not answer within 1 s (stopped, with what it started); give a Python interpreter"
    )
    child = int(pid_file.read_text())
    for _ in range(50):  # SIGKILL is sent; the kernel reaps the orphan a moment later
        if not _alive(child):
            break
        time.sleep(0.1)
    assert not _alive(child)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as stat:  # a zombie (killed, not yet reaped by init) is not running
        return stat.read().split(") ")[1][0] != "Z"
