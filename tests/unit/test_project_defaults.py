"""[tool.perflab] in a project's pyproject.toml: defaults for every verb or one, under the command
line, checked as the options' own values are (perflab.cli.support.project_defaults)."""

from __future__ import annotations

import pytest

from perflab.cli import parser
from perflab.cli.support import project_defaults
from perflab.cli.support.options import UsageError


def parsed(tmp_path, toml: str, *argv: str, cwd=None):
    (tmp_path / "pyproject.toml").write_text(toml)
    top = parser()
    verb = top.parse_args(list(argv)).verb
    project_defaults.apply(top, verb, cwd or tmp_path)
    return top.parse_args(list(argv))


def test_defaults_come_from_the_file_and_the_command_line_wins(tmp_path):
    toml = '[tool.perflab]\nmax-time = 7\nclock = "cpu"\n\n[tool.perflab.check]\nthreshold = 3\nmax-time = 9\n'
    run = parsed(tmp_path, toml, "run", "bench.py")
    assert (run.max_time, run.clock) == (7.0, "cpu")
    check = parsed(tmp_path, toml, "check", "bench.py", "--against", "HEAD")
    assert check.max_time == 9.0 and check.threshold == pytest.approx(0.03)
    assert parsed(tmp_path, toml, "run", "bench.py", "--max-time", "2").max_time == 2.0
    nested = tmp_path / "src" / "deep"
    nested.mkdir(parents=True)  # the nearest pyproject.toml up from the current directory
    assert parsed(tmp_path, toml, "run", "bench.py", cwd=nested).max_time == 7.0


def test_flags_and_repeated_options_take_their_toml_types(tmp_path):
    toml = '[tool.perflab.run]\nno-store = true\nmetric = ["memory", "instructions"]\n'
    args = parsed(tmp_path, toml, "run", "bench.py")
    assert args.no_store is True and args.metric == ["memory", "instructions"]


@pytest.mark.parametrize(
    ("toml", "said"),
    [
        ("[tool.perflab]\nmax-tme = 7\n", "[tool.perflab] max-tme: no perflab command has an option --max-tme"),
        ("[tool.perflab.rnu]\nvalues = 3\n", "[tool.perflab.rnu]: perflab has no command 'rnu'"),
        ("[tool.perflab.run]\nthreshold = 3\n", "[tool.perflab.run] threshold: perflab run has no option --threshold"),
        ('[tool.perflab]\nmax-time = "soon"\n', "[tool.perflab] max-time: 'soon' is not a number of seconds"),
        ('[tool.perflab]\nclock = "sundial"\n', "[tool.perflab] clock: 'sundial': choose from wall, cpu"),
        ("[tool.perflab.run]\nno-store = 1\n", "[tool.perflab.run] no-store: 1: give true or false"),
        ("[tool.perflab\n", "cannot read its [tool.perflab] defaults"),
    ],
)
def test_a_bad_key_or_value_is_a_one_line_error_naming_the_file(tmp_path, toml, said):
    with pytest.raises(UsageError) as error:
        parsed(tmp_path, toml, "run", "bench.py")
    assert str(error.value).startswith(f"{tmp_path / 'pyproject.toml'}: ") and said in str(error.value)
    assert "\n" not in str(error.value)


def test_the_stores_environment_variable_wins_over_the_file(tmp_path, monkeypatch):
    toml = '[tool.perflab]\ndb = "team.db"\n'
    monkeypatch.delenv("PERFLAB_DB", raising=False)  # the tests' own store, set by conftest
    assert parsed(tmp_path, toml, "run", "bench.py").db == "team.db"
    monkeypatch.setenv("PERFLAB_DB", "ci.db")
    assert parsed(tmp_path, toml, "run", "bench.py").db is None  # the default: $PERFLAB_DB


def test_a_queue_workers_job_ignores_the_submitted_repositorys_defaults(tmp_path, monkeypatch):
    """A job runs in a checkout of a submitted repository: its [tool.perflab] must not choose the
    job's options, such as an output the worker decides (perflab.queue.execute sets the variable)."""
    monkeypatch.setenv(project_defaults.IGNORED, "1")
    args = parsed(tmp_path, '[tool.perflab.run]\nhtml = "/tmp/elsewhere.html"\n', "run", "bench.py")
    assert args.html is None
