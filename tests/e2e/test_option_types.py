"""The argparse types shared by the command line and the pytest plugin refuse hostile values."""

from support.cli import run_perflab


def test_the_command_line_refuses_a_nan_budget():
    done = run_perflab("run", "json_dumps", "--max-time", "nan")
    assert done.returncode == 2
    assert "--max-time: 'nan' must be a finite number" in done.stderr
