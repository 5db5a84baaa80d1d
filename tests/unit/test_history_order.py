"""Histories in commit order and without perflab check's runs: four commits made in one second (a
rebase, a scripted series) and check runs stored among them leave the change point where it is, in
``perflab history`` and on the web's series page. A git repository in a temporary directory, runs
built here and stored in a real SQLite store (stored newest first, as a backfill stores them)."""

from __future__ import annotations

import io
import warnings

import pytest
from rich.console import Console
from support.git_repos import git_repository
from support.store_results import synthetic_result

from perflab import git as git_commands
from perflab.analysis import changepoints
from perflab.cli import parser
from perflab.results import history
from perflab.results.store import CHECK_SOURCE, Store

STEP = 5  # commits from this one on are 20% slower
SAME_SECOND = range(3, 7)  # four commits made in one second, around the step
T0 = 1_700_000_000


@pytest.fixture
def store_of_commits(tmp_path, monkeypatch):
    """Ten commits (3 to 6 in one second) and a run of each; six check runs (the commit before the
    step as the baseline and the last commit's working tree, measured later on a slower machine
    state: both at the new level) stored among them. Returns the store and the commits' labels."""
    repo = tmp_path / "repo"
    git = git_repository(repo)
    commits = []
    for index in range(10):
        when = T0 + 10 * (3 if index in SAME_SECOND else index if index < 3 else index - 3)
        (repo / "bench.py").write_text(f"# version {index}\n")
        git("add", "bench.py")
        for name in ("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE"):
            monkeypatch.setenv(name, f"@{when} +0000")
        git("commit", "-q", "-m", f"commit {index}")
        commits.append(git_commands.run(repo, "rev-parse", "HEAD"))
    path = tmp_path / "perflab.db"
    with Store.open(path) as store:
        for index in reversed(range(10)):
            run = synthetic_result(time=1e-5 * (1.2 if index >= STEP else 1.0), seed=index, processes=8, noise=0.01)
            git("checkout", "-q", commits[index])
            run.metadata["git"] = git_commands.head(repo)
            store.save(run)
            if index in (8, 5, 2):  # perflab check: the baseline and the working tree, side by side
                for commit, seed in ((commits[STEP - 1], 100 + index), (commits[-1], 200 + index)):
                    checked = synthetic_result(time=1.2e-5, seed=seed, processes=8, noise=0.01, commit=commit)
                    checked.metadata["git"].update(
                        dirty=commit == commits[-1],
                        commit_time=git_commands.commit_time(repo, commit),
                        generation=git_commands.generation(repo, commit),
                    )
                    store.save(checked, source=CHECK_SOURCE)
    return path, [commit[:8] for commit in commits]


def test_same_second_commits_come_out_in_commit_order_and_check_runs_stay_out(store_of_commits):
    path, labels = store_of_commits
    with Store.open(path) as store:
        [series] = history.series(store, "bench")
    assert [m.run.label for m in series.measurements] == labels
    assert series.checks == 6
    [step] = changepoints.detect(series.points, min_step=series.min_step).steps
    assert (step.before, step.after) == (labels[STEP - 1], labels[STEP]) and step.ratio.value == pytest.approx(
        1.2, rel=0.03
    )


def test_history_says_where_the_change_point_is_and_what_it_left_out(store_of_commits, capsys):
    path, labels = store_of_commits
    args = parser().parse_args(["history", "bench", "--db", str(path)])
    assert args.handler(args, Console(file=io.StringIO())) == 0
    text = capsys.readouterr().out
    assert f"after {labels[STEP - 1]}, at or before {labels[STEP]}" in text, text
    assert "6 run(s) of perflab check not shown" in text
    assert [words[0] for words in map(str.split, text.splitlines()) if words and words[0] in labels] == labels


def test_the_web_series_page_shows_the_same_order_and_change_point(store_of_commits):
    pytest.importorskip("starlette", reason="the web view needs perflab[web]")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Starlette asks for httpx2 over httpx
        from starlette.testclient import TestClient

    from perflab.web.app import ServeSettings, create_app

    path, labels = store_of_commits
    client = TestClient(create_app(ServeSettings(path)))
    [summary] = client.get("/api/series").json()["series"]
    data = client.get(f"/api/series/{summary['id']}").json()
    assert data["points"]["label"] == labels and data["checks_left_out"] == 6
    [change] = data["changes"]
    assert (change["before"], change["after"]) == (labels[STEP - 1], labels[STEP])
    page = client.get(f"/series/{summary['id']}").text
    assert f"{len(labels)} runs in commit order" in page and f"{labels[STEP - 1]} … {labels[STEP]}" in page
    assert "6 run(s) of perflab check not shown" in page


def test_a_check_run_stored_last_leaves_the_default_contender_the_reference(tmp_path):
    """perflab check stores one run per contender, each its own reference: after a check of another
    contender, history at its defaults showed that contender's series instead of the reference's."""
    path = tmp_path / "perflab.db"
    with Store.open(path) as store:
        store.save(synthetic_result(contender="stdlib", seed=1))
        store.save(synthetic_result(contender="fast", seed=2), source=CHECK_SOURCE)
        [series] = history.series(store, "bench")
    assert series.contender == "stdlib"


def test_a_store_of_check_runs_only_is_said_in_one_line_without_a_wildcard(tmp_path):
    path = tmp_path / "perflab.db"
    with Store.open(path) as store:
        store.save(synthetic_result(contender="stdlib"), source=CHECK_SOURCE)
        with pytest.raises(history.HistoryError) as error:
            history.series(store, "bench")
    assert f"{path}: the only stored runs of bench, contender 'stdlib' are perflab check's" in str(error.value)
