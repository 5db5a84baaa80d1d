"""What a job measures: one whole run or comparison, on one machine (its task arguments, JSON)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

TASK = "perflab.measure"  # the procrastinate task name (submitters defer it by name)
QUEUE_PREFIX = "perflab-"  # a worker --label L takes the jobs of queue perflab-L
# Where a job's outputs go is the worker's choice, never the submitter's: it writes the results to
# its own temporary file and stores them in its own store.
WORKER_CHOOSES = ("--json", "--markdown", "--html", "--pyperf", "--profile-dir", "--db", "--no-store")


class OptionRefused(ValueError):
    """A job's options name something only the worker decides; one line."""


def queue_of(label: str) -> str:
    return QUEUE_PREFIX + label


@dataclass(frozen=True)
class JobSpec:
    """``benchmark``: a file's path inside ``repository`` (a path or URL git can clone), measured
    at ``commit``; or a built-in's name when ``repository`` is None. ``revisions`` (commits): a
    comparison of them, measured interleaved by one worker. ``build`` (None: when the project
    compiles), ``build_command`` and ``build_spread``: how the worker builds those revisions, in its
    own build cache (compare's --build/--no-build, --build-command, --build-spread). ``options``:
    more `perflab run` or `perflab compare` options, checked when submitted."""

    benchmark: str
    repository: str | None = None
    commit: str | None = None
    revisions: list[str] = field(default_factory=list)
    pythons: list[str] = field(default_factory=list)
    options: list[str] = field(default_factory=list)
    build: bool | None = None
    build_command: str | None = None
    build_spread: bool = False

    @property
    def verb(self) -> str:
        return "compare" if self.revisions or len(self.pythons) > 1 else "run"

    def arguments(self, benchmark: str) -> list[str]:
        """The perflab command line (after ``perflab``) that measures it, ``benchmark`` checked out."""
        revisions = [arg for commit in self.revisions for arg in ("--rev", commit)]
        pythons = [arg for python in self.pythons for arg in ("--python", python)]
        build = [] if self.build is None else ["--build" if self.build else "--no-build"]
        build += ["--build-command", self.build_command] if self.build_command is not None else []
        build += ["--build-spread"] if self.build_spread else []
        return [self.verb, benchmark, *revisions, *pythons, *build, *_submittable(self.options)]

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> JobSpec:
        return cls(**data)

    @property
    def title(self) -> str:
        where = f" @ {self.commit[:10]}" if self.commit else ""
        compared = f" comparing {', '.join(c[:10] for c in self.revisions)}" if self.revisions else ""
        return f"{self.benchmark}{where}{compared}"


def _submittable(options: list[str]) -> list[str]:
    """``options``, refused (OptionRefused) if one is an output the worker chooses, however it is
    spelled: ``--html=F`` as well as an abbreviation argparse would expand (``--htm``)."""
    for word in options:
        name = word.partition("=")[0]
        if len(name) > 2 and name.startswith("--") and any(full.startswith(name) for full in WORKER_CHOOSES):
            chosen = ", ".join(WORKER_CHOOSES)
            raise OptionRefused(f"--options: {name}: a worker chooses where a job's outputs go ({chosen} are its own)")
    return options
