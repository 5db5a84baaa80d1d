"""What the perf sampler's external tests share: a native profile of the built-in json_dumps' NESTED case."""

from __future__ import annotations

import subprocess
from pathlib import Path

from perflab.profile.model import Profile
from support.cli import run_perflab


def nested_native_profile(tmp_path: Path, python: str, *options: str) -> tuple[subprocess.CompletedProcess, Profile]:
    """``perflab profile json_dumps --case NESTED --native`` under ``python``: the run and its profile,
    taken by perf (--native's default where perf works)."""
    out = tmp_path / "nested.profile.json"
    done = run_perflab(
        "profile", "json_dumps", "--case", "NESTED", "--python", python, "--native", *options, "--json", out
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    profile = Profile.load(out)
    assert (profile.metadata["sampler"], profile.metadata["rate"]) == ("perf", 1000)  # auto picked perf
    return done, profile
