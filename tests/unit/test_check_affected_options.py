"""``check --affected``'s options refused before anything is loaded or measured, in one line."""

from __future__ import annotations

import pytest
from support.git_repos import committed

from perflab.cli import main


@pytest.mark.parametrize(
    ("options", "said"),
    [
        ([], "--against REF_OR_FILE is required (or --affected REV)"),
        (["--affected"], "--affected needs a revision: --affected REV, or --against REV --affected"),
        (["--against", "main", "--affected", "v1"], "--against main --affected v1: the change is measured against"),
        (["--against", "{file}", "--affected"], "a results file has no code to compare with; give a git revision"),
    ],
)
def test_a_combination_that_cannot_work_is_one_line(tmp_path, capsys, options, said):
    results = tmp_path / "base.json"
    results.write_text("{}")
    code = main(["check", str(tmp_path / "missing.py"), *(o.format(file=results) for o in options)])
    err = capsys.readouterr().err
    assert code == 2 and said in err and "missing.py" not in err
    assert len(err.strip().splitlines()) == 1


def test_a_revision_that_does_not_exist_is_named_by_the_option_it_was_given_with(tmp_path, capsys):
    """`--affected nosuch` was said as "--against nosuch: no such results file, and not a git revision"."""
    bench = (
        "import perflab\n\nbench = perflab.Benchmark('b')\nbench.case(lambda: 1, name='ONE')\nbench.contender(abs)\n"
    )
    committed(tmp_path, {"bench.py": bench})
    assert main(["check", str(tmp_path / "bench.py"), "--affected", "nosuch"]) == 2
    err = capsys.readouterr().err
    assert (
        err.strip()
        == f"perflab: error: --affected nosuch: not a git revision of the repository holding {tmp_path / 'bench.py'}"
    )


def test_a_revision_that_does_not_exist_is_said_before_the_working_tree_is_built(tmp_path, capsys, monkeypatch):
    """The working tree of a compiled project was built (hours for a large one) before a mistyped
    --against was found."""
    monkeypatch.setenv("PERFLAB_CACHE", str(tmp_path / "cache"))
    committed(tmp_path / "repo", {"setup.py": "Extension(", "bench.py": "import perflab\n"})
    assert main(["check", str(tmp_path / "repo" / "bench.py"), "--against", "nosuch", "--build-command", "false"]) == 2
    assert "--against nosuch: no such results file, and not a git revision" in capsys.readouterr().err
    assert not (tmp_path / "cache").exists()
