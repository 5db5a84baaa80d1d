"""``perflab publish``: the web view as a static site that works from ``file://`` and on GitHub Pages.

The same pages as ``perflab serve``, written once from one snapshot of the store: the overview
(filtered in the browser, with the same URL parameters), every series, every run, the comparisons
around each change point, every stored profile and the differential profile of each change point
whose two runs have one, the change points page, the Atom feed and the JSON endpoints as files.
Assets are copied next to the pages; nothing is loaded from the network.

The output folder is written only if it is empty or holds an earlier published site (its
``MARKER`` file): publishing never overwrites anything else. A site is for the public: each run's
page shows what a reader needs (``for_the_public``), not the machine's host name, the command line,
the interpreter's or the benchmark's absolute paths, or the import paths of its sides.
"""

from __future__ import annotations

import copy
import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path

from perflab.results.model import RunResult
from perflab.results.store import Store
from perflab.web import pages
from perflab.web.catalog import Catalog, Filters, all_changes
from perflab.web.run_pair import compare_runs
from perflab.web.site import Links, cell_id, change_entries, series_payload

MARKER = ".perflab-site"


class PublishError(Exception):
    """The site cannot be written there; the message names the folder and what to do."""


@dataclass
class Published:
    pages: int = 0
    series: int = 0
    runs: int = 0


def publish(
    db: Path | str, out: Path, base_url: str = "", on_progress: Callable[[str], None] = lambda _: None
) -> Published:
    _check_output(out, db)
    root, below = Links(static_site=True), Links(static_site=True, depth=1)
    done = Published()

    def write(relative: str, text: str) -> None:
        path = out / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        done.pages += 1

    out.mkdir(parents=True, exist_ok=True)
    (out / MARKER).write_text("written by perflab publish; the folder is replaced on the next publish\n")
    with Store.open(db, read_only=True) as store, store.snapshot():
        series = Catalog().series(store)
        done.series = len(series)
        pairs = {(c.before.run_id, c.after.run_id) for s in series for c in s.changes}
        write("index.html", pages.overview(root, series, Filters(), can_mark=False))
        write("regressions.html", pages.regressions(root, series))
        write("regressions.atom", pages.feed(root, series, base_url.rstrip("/")))
        write("api/series.json", json.dumps({"series": [pages.summary(root, s) for s in series]}))
        write("api/regressions.json", json.dumps({"changes": change_entries(all_changes(series), root)}))
        on_progress(f"{len(series)} series")
        for s in series:
            write(f"series/{s.key.id}.html", pages.series(below, store, s, False, published_comparisons=pairs))
            write(f"api/series/{s.key.id}.json", json.dumps(series_payload(s, root, pages.metrics(store, s, root))))
        runs = store.runs()
        done.runs = len(runs)
        on_progress(f"{len(runs)} runs")
        for run in runs:
            write(f"runs/{run.id}.html", pages.run(below, store, series, run.id, shown=for_the_public))
            for case, contender in store.profiles_of_run(run.id):
                page = pages.profile(below, store, run.id, cell_id(case, contender))
                if page is not None:  # None: the profile went between listing and reading
                    write(below.profile(run.id, case, contender).removeprefix("../"), page)
        on_progress(f"{len(pairs)} comparisons around change points")
        for a, b in sorted(pairs):
            write(f"compare/{a}-{b}.html", pages.comparison(below, store, compare_runs(store, a, b)))
            for case, contender in set(store.profiles_of_run(a)) & set(store.profiles_of_run(b)):
                html = pages.profile_diff(below, store, a, b, cell_id(case, contender))
                if html:
                    write(below.profile_diff(a, b, case, contender).removeprefix("../"), html)
    _copy_assets(out / "static")
    return done


def for_the_public(result: RunResult) -> RunResult:
    """What a published page shows of a run: files by their last two path parts (``bench/x.py``),
    interpreters by their file name, and no host name, command line or import paths."""
    metadata = copy.deepcopy(result.metadata)
    metadata.pop("command", None)
    (metadata.get("machine") or {}).pop("hostname", None)
    for python in [
        metadata.get("python") or {},
        *((side.get("python") or {}) for side in (metadata.get("sides") or {}).values()),
    ]:
        if python.get("executable"):
            python["executable"] = Path(python["executable"]).name
    sides = {
        name: {**side, "file": _short(side.get("file")), "python": _short(side.get("python"), 1), "sys_path": []}
        for name, side in result.sides.items()
    }
    settings = (
        {**result.settings, "python": _short(result.settings.get("python"), 1)}
        if "python" in result.settings
        else result.settings
    )
    return replace(result, file=_short(result.file) or "", metadata=metadata, sides=sides, settings=settings)


def _short(path: object, parts: int = 2) -> str | None:
    """A path by its last ``parts`` parts; None stays None."""
    return None if path is None else "/".join(Path(str(path)).parts[-parts:])


def _check_output(out: Path, db: Path | str) -> None:
    if out.exists() and not out.is_dir():
        raise PublishError(f"--out {out}: is a file, not a folder; pass a new or empty folder")
    if out.is_dir() and any(out.iterdir()) and not (out / MARKER).exists():
        raise PublishError(
            f"--out {out}: not empty and not an earlier perflab site (no {MARKER}); it was left "
            "untouched: pass a new or empty folder"
        )
    if isinstance(db, Path) and db.resolve().is_relative_to(out.resolve()):
        raise PublishError(f"--out {out}: holds the database {db}; pass a folder outside it")


def _copy_assets(target: Path) -> None:
    """The web view's scripts and styles, the vendored libraries with their licences, and the flame
    graph viewers of the HTML reports."""
    for package, folder in (("perflab.web", "static"), ("perflab.render.html", "assets")):
        with resources.as_file(resources.files(package) / folder) as source:
            shutil.copytree(source, target, dirs_exist_ok=True)
