"""``perflab publish --out DIR``: the web view as a static site (needs the ``perflab[web]`` extra)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from perflab.cli.support.options import EXIT_BAD_INPUT, EXIT_OK, add_verb, store_options

if TYPE_CHECKING:
    from rich.console import Console


def register(verbs: argparse._SubParsersAction) -> None:
    publish = add_verb(
        verbs,
        "publish",
        "write the web view as a static site that works from file:// and on GitHub Pages (needs perflab[web])",
        "perflab publish --out site/ && xdg-open site/index.html",
        "perflab publish --out public/ --db team.db --base-url https://example.org/perf/",
    )
    publish.add_argument(
        "--out",
        required=True,
        metavar="DIR",
        help="a new or empty folder, or one an earlier publish wrote (it is updated)",
    )
    publish.add_argument(
        "--base-url",
        default="",
        metavar="URL",
        help="where the site will be served, for absolute links in the Atom feed",
    )
    store_options(publish, saves=False, of_benchmark=False)
    publish.set_defaults(handler=run)


def run(args: argparse.Namespace, err: Console) -> int:
    from perflab.cli.serve import web_store

    path = web_store(args, err, "publish")
    if path is None:
        return EXIT_BAD_INPUT
    from perflab.results.store import StoreError
    from perflab.units import counted
    from perflab.web.publish import PublishError, publish

    try:
        done = publish(
            path,
            Path(args.out),
            args.base_url,
            on_progress=lambda message: err.print(f"  {message}", markup=False, highlight=False),
        )
    except (StoreError, PublishError) as error:
        err.print(f"perflab publish: error: {error}", markup=False, highlight=False, soft_wrap=True)
        return EXIT_BAD_INPUT
    err.print(
        f"site written to {Path(args.out).resolve()}: {done.pages} pages and JSON files, {done.series} series, "
        f"{counted(done.runs, 'run')}; "
        f"open {Path(args.out).resolve() / 'index.html'}",
        markup=False,
        highlight=False,
    )
    return EXIT_OK
