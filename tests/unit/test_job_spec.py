"""A job's request as the queue keeps it (JSON) and the perflab command line a worker runs for it."""

import pytest
from support.git_repos import committed

from perflab.cli import main
from perflab.measure.worktrees import RevisionError
from perflab.queue.checkout import checked_out, mirror
from perflab.queue.execute import JobFailed, Worker, execute
from perflab.queue.job_spec import JobSpec, OptionRefused


def test_the_build_choice_reaches_the_workers_command_line():
    spec = JobSpec("b.py", "repo", "c0", ["c1", "c2"], build=True, build_command="make install", build_spread=True)
    arguments = JobSpec.from_json(spec.to_json()).arguments("/clone/b.py")
    assert arguments == [
        "compare", "/clone/b.py", "--rev", "c1", "--rev", "c2",
        "--build", "--build-command", "make install", "--build-spread",
    ]  # fmt: skip
    assert "--no-build" in JobSpec("b.py", "repo", "c0", ["c1", "c2"], build=False).arguments("b.py")


def test_a_job_queued_before_the_build_options_still_reads():
    queued = {"benchmark": "b.py", "repository": "repo", "commit": "c0", "revisions": ["c1", "c2"], "pythons": []}
    assert JobSpec.from_json({**queued, "options": []}).arguments("b.py") == [
        "compare",
        "b.py",
        "--rev",
        "c1",
        "--rev",
        "c2",
    ]


def test_a_worker_checks_out_a_benchmark_in_a_subfolder_of_its_repository(tmp_path):
    """The worker's clone has no files checked out, so the benchmark's folder is not there."""
    commit = committed(tmp_path / "repo", {"benchmarks/bench.py": "# the benchmark\n"})
    with checked_out(str(tmp_path / "repo"), commit, "benchmarks/bench.py", tmp_path / "clones", []) as file:
        assert file.read_text() == "# the benchmark\n"


@pytest.mark.parametrize("option", ["--html=/tmp/x.html", "--html", "--htm=/tmp/x", "--profile-dir", "--db=o.db"])
def test_a_submitted_option_never_chooses_where_a_worker_writes(option, tmp_path):
    """``submit --options '--html /path'`` made a worker write where the submitter said (issue 42):
    refused when submitted, and by the worker for a job queued by other means."""
    spec = JobSpec("b.py", options=[option, "/tmp/x"])
    with pytest.raises(OptionRefused, match=r"^--options: --[a-z-]+: a worker chooses where a job's outputs go"):
        spec.arguments("b.py")
    with pytest.raises(JobFailed, match="a worker chooses"):
        execute(1, spec, Worker(tmp_path / "store.db", tmp_path / "cache", "host"), lambda: False)
    assert JobSpec("b.py", options=["--case=--html", "--no-fuzz"]).arguments("b.py")[-1] == "--no-fuzz"


def test_a_repository_that_looks_like_an_option_is_cloned_as_a_name(tmp_path):
    touched = tmp_path / "touched"
    with pytest.raises(RevisionError, match="repository '--upload-pack=touch .*' does not exist"):
        mirror(f"--upload-pack=touch {touched}", tmp_path / "clones", ["0" * 40])
    assert not touched.exists()


def test_submit_refuses_a_repository_that_looks_like_an_option(capsys):
    assert main(["submit", "json_dumps", "--repo=--upload-pack=touch /tmp/x", "--db", "postgresql://h/db"]) == 2
    assert "--repo --upload-pack=touch /tmp/x: a repository's path or URL, not an option" in capsys.readouterr().err
