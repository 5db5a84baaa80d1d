"""A job's request as the queue keeps it (JSON) and the perflab command line a worker runs for it."""

from support.git_repos import committed

from perflab.queue.checkout import checked_out
from perflab.queue.job_spec import JobSpec


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
