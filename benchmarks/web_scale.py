"""Figure: the web view at scale. A synthetic store of SERIES series x RUNS runs (default 100 x 1,000:
10 benchmarks of 10 cases, one run per benchmark and commit, every third series with a 10% step at
60% of its history), served by a real `perflab serve` process; measured from outside:

- the server's start: until it accepts connections, having detected every series' change points
  (done before the first request; afterwards only a series with a new run is re-detected);
- the overview (GET /, every series with its sparkline, latest value and latest change point):
  the first request, then REPEATS more, as HTTP wall time from this process;
- a series page's chart in Chromium (Debian's /usr/bin/chromium through Playwright): the time from
  navigation start until series.js has drawn the chart (``body[data-chart-drawn-ms]``, set after
  uPlot's first draw), over PAGES different series pages.

Each figure: the median with a distribution-free 95% interval (binomial order statistics), plus the
smallest and largest value. The store is built through ``Store.save`` with estimates set directly
(no raw values: the pages read the indexed columns); building it is not timed.

    python benchmarks/web_scale.py                       # 100 x 1,000; writes results/web_scale.json
    python benchmarks/web_scale.py --quick               # smoke run: 3 x 20, two pages
"""

from __future__ import annotations

import math
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import numpy as np
from scipy import stats as scipy_stats

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _cli
from _common import CHROMIUM, CHROMIUM_ARGS, conditions, format_load, machine

from perflab.results.model import Cell, Equivalence, RunResult
from perflab.results.quantities import CellEstimates, Interval
from perflab.results.store import Store

CASES_PER_BENCHMARK = 10


def build_store(path: Path, series: int, runs: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    benchmarks = math.ceil(series / CASES_PER_BENCHMARK)
    machine_meta = {"cpu_model": "Synthetic CPU", "cpu_count": 8, "os": "Linux", "kernel": "6.1"}
    start = 1.7e9
    with Store.open(path) as store:
        for b in range(benchmarks):
            cases = [f"case{c}" for c in range(min(CASES_PER_BENCHMARK, series - b * CASES_PER_BENCHMARK))]
            for r in range(runs):
                commit = f"{b:04x}{r:06x}".ljust(40, "0")
                result = RunResult(
                    benchmark=f"bench{b}",
                    file=f"/synthetic/bench{b}.py",
                    reference="base",
                    settings={},
                    work={},
                    metadata={
                        "python": {"implementation": "CPython", "version": "3.12.0", "build": "x"},
                        "machine": machine_meta,
                        "packages": {},
                        "git": {
                            "commit": commit,
                            "branch": "main",
                            "dirty": False,
                            "commit_time": start + r * 3600,
                            "subject": f"commit {r}",
                        },
                    },
                )
                for c, case in enumerate(cases):
                    stepped = (b * CASES_PER_BENCHMARK + c) % 3 == 0 and r >= int(runs * 0.6)
                    value = 1e-5 * (1 + c) * (1.1 if stepped else 1.0) * math.exp(rng.normal(0, 0.005))
                    half = value * 0.01
                    interval = Interval(value, value - half, value + half)
                    cell = Cell(case, "base")
                    cell.estimates = CellEstimates(interval, interval, 6, 60, 0, 0)
                    result.cells.append(cell)
                    result.equivalence.append(Equivalence(case, "base", "reference"))
                store.save(result)


def median_interval(values: list[float]) -> dict[str, float]:
    """Median with a distribution-free 95% interval from binomial order statistics."""
    ordered = sorted(values)
    n = len(ordered)
    k = int(scipy_stats.binom.ppf(0.025, n, 0.5))
    low, high = (ordered[max(k - 1, 0)], ordered[min(n - k, n - 1)]) if n >= 6 else (ordered[0], ordered[-1])
    return {
        "median": float(np.median(ordered)),
        "low": low,
        "high": high,
        "min": ordered[0],
        "max": ordered[-1],
        "n": n,
    }


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url: str) -> tuple[float, bytes]:
    started = time.perf_counter()
    with urllib.request.urlopen(url, timeout=600) as response:
        body = response.read()
    return time.perf_counter() - started, body


def main() -> int:
    arguments = _cli.parser(__doc__)
    arguments.add_argument("--series", type=int, default=100, help="series in the store (default 100)")
    arguments.add_argument("--runs", type=int, default=1000, help="runs per series (default 1000)")
    _cli.add_trials(arguments, 30, "warm overview requests", flag="--repeats")
    _cli.add_trials(arguments, 15, "series pages drawn in Chromium", flag="--pages")
    args = _cli.parse(arguments, series=3, runs=20, repeats=3, pages=2)
    before = conditions()
    with tempfile.TemporaryDirectory() as directory:
        db = Path(directory) / "perflab.db"
        started = time.perf_counter()
        build_store(db, args.series, args.runs)
        built = time.perf_counter() - started
        size = db.stat().st_size
        port = free_port()
        launched = time.perf_counter()
        server = subprocess.Popen(
            [sys.executable, "-m", "perflab", "serve", "--db", str(db), "--port", str(port)],
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ},
        )
        base = f"http://127.0.0.1:{port}"
        try:
            for _ in range(6000):
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    time.sleep(0.1)
            ready = time.perf_counter() - launched
            cold, body = get(base + "/")
            warm = [get(base + "/")[0] for _ in range(args.repeats)]
            import re

            series_urls = list(dict.fromkeys(re.findall(rb'href="(/series/[0-9a-f]{16})"', body)))[: args.pages]
            from playwright.sync_api import sync_playwright

            drawn = []
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                for url in series_urls:
                    page.goto(base + url.decode())
                    page.wait_for_selector("body[data-ready=true]")
                    drawn.append(float(page.get_attribute("body", "data-chart-drawn-ms")) / 1000)
                browser.close()
        finally:
            server.terminate()
            server.wait(timeout=30)
    after = conditions()
    figure = {
        "what": "perflab serve: overview response time and series chart draw time at scale",
        "series": args.series,
        "runs_per_series": args.runs,
        "store_bytes": size,
        "build_seconds": built,
        "server_ready_s": ready,
        "overview_first_request_s": cold,
        "overview_warm_s": median_interval(warm),
        "series_chart_drawn_s": median_interval(drawn),
        "conditions": {"start": before, "end": after},
        "machine": machine(),
    }
    print(f"store: {args.series} series x {args.runs} runs ({size / 1e6:.1f} MB, built in {built:.0f} s)")
    print(f"server ready (process start, imports, change points of every series): {ready:.1f} s (one start)")
    print(f"overview, first request: {cold * 1000:.0f} ms")
    w = figure["overview_warm_s"]
    print(
        f"overview, warm: median {w['median'] * 1000:.1f} ms [95% CI {w['low'] * 1000:.1f}, {w['high'] * 1000:.1f}] "
        f"(min {w['min'] * 1000:.1f}, max {w['max'] * 1000:.1f}, {w['n']} requests, HTTP wall time)"
    )
    d = figure["series_chart_drawn_s"]
    print(
        f"series chart drawn in Chromium: median {d['median'] * 1000:.0f} ms [95% CI {d['low'] * 1000:.0f}, "
        f"{d['high'] * 1000:.0f}] (min {d['min'] * 1000:.0f}, max {d['max'] * 1000:.0f}, {d['n']} pages, "
        "navigation start to first uPlot draw)"
    )
    print(f"load average: start {format_load(before)}; end {format_load(after)}")
    _cli.written(_cli.write_figure("web_scale", figure))
    return 0


if __name__ == "__main__":
    sys.exit(main())
