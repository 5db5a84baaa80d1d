"""Command contenders (perflab.bench.commands): real programs timed as processes, compared by output.

Every test runs real processes: a small C++ program compiled once per session
(tests/native/linecount.cpp), coreutils, /bin/sh.
"""

import shutil
import sys

from perflab.bench.commands import (
    MAX_RSS,
    SYSTEM,
    USER,
    Command,
    CommandOperation,
)


def test_an_operation_runs_the_program_and_measures_its_processes(tmp_path):
    operation = CommandOperation(
        Command((sys.executable, "-c", "import sys; print(len(sys.stdin.read()))"), input="stdin")
    )
    assert operation(b"abc") == {"stdout": b"3\n", "exit_status": 0}
    seconds = operation.times_itself(b"abcd", 3)
    extra = operation.take_extra()
    assert seconds > 0 and extra[USER] + extra[SYSTEM] > 0 and extra[MAX_RSS] > 0
    assert shutil.which("sh")
    echo = CommandOperation(Command(("printf", "%s|", "a b", "{input}"), input="arg"))
    assert echo("x y")["stdout"] == b"a b|x y|"
