"""``check --affected``'s options refused before anything is loaded or measured, in one line."""

from __future__ import annotations

import pytest

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
