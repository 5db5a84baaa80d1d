"""A published site shows what a reader needs of a run, not the publisher's private data."""

from __future__ import annotations

from support.store_results import synthetic_result

from perflab.results.store import Store
from perflab.web.publish import publish

PRIVATE = ("secret-host", "/home/alice", "perflab run --db")


def test_no_host_name_command_line_or_absolute_path_reaches_a_published_page(tmp_path):
    result = synthetic_result(commit="a" * 40, machine={"cpu_model": "Xeon", "cpu_count": 2, "hostname": "secret-host"})
    result.file = "/home/alice/project/benchmarks/bench.py"
    result.metadata["command"] = "perflab run --db team.db /home/alice/project/benchmarks/bench.py"
    result.metadata["python"]["executable"] = "/home/alice/.venv/bin/python3"
    result.settings["python"] = "/home/alice/.venv/bin/python3"
    result.sides = {"base": {"file": result.file, "contender": "base", "python": "/home/alice/.venv/bin/python3",
                             "sys_path": ["/home/alice/project/src"]}}  # fmt: skip
    db = tmp_path / "perflab.db"
    with Store.open(db) as store:
        store.save(result)
    publish(db, tmp_path / "site")
    pages = {
        path: path.read_text() for path in (tmp_path / "site").rglob("*") if path.suffix in (".html", ".json", ".atom")
    }
    run_page = next(text for path, text in pages.items() if path.parent.name == "runs")
    assert "benchmarks/bench.py" in run_page and "python3" in run_page  # what a reader needs stays
    for path, text in pages.items():
        for private in PRIVATE:
            assert private not in text, f"{private!r} in {path}"
