"""Figure: the HTML flame graph at scale: 1,000,000 samples over 50,000 distinct frames.

A synthetic profile (fixed seed): a random call tree of ``--nodes`` nodes whose frames are drawn
from ``--frames`` distinct functions (each function appears in several calling contexts), with
``--samples`` samples spread over its nodes (heavy-tailed weights) and split into 10 runs.
Measured: the time to generate the HTML (shares with intervals, call tree, page), the file size,
and in headless Chromium (Debian's /usr/bin/chromium through Playwright) the time from navigation
until the first frame is drawn, the time of the first canvas draw alone, and the time of a search
and of a zoom (each until the redraw is done). Best of ``--repeats`` page loads. Target: render < 1 s.

    python benchmarks/profile_viewer_scale.py [--samples 1000000 --frames 50000 --nodes 150000]
    python benchmarks/profile_viewer_scale.py --quick     # smoke run: 10,000 samples, one page load

Writes benchmarks/results/profile_viewer_scale.json (the HTML itself goes to a temporary directory).
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _cli
from _common import CHROMIUM, CHROMIUM_ARGS, conditions, machine

from perflab.profile.model import Profile
from perflab.profile.shares import frame_shares
from perflab.render.html.flamegraph import render as render_html

RUNS = 10


def synthetic_profile(samples: int, frames: int, nodes: int, seed: int = 1) -> Profile:
    rng = np.random.default_rng(seed)
    labels = [
        f"function_{i} (<project>/package/module_{i % 700}.py:{1 + i % 997})"
        if i % 5
        else f"native_function_{i} (ext_{i % 40}.c)"
        for i in range(frames)
    ]
    # A random recursive tree (each node's parent uniform among earlier nodes): about 12 levels on
    # average and about 30 at most, like real profiles.
    parents = np.concatenate([[-1], [int(rng.integers(0, i)) for i in range(1, nodes)]])
    frame_of = np.concatenate([np.arange(min(frames, nodes)), rng.integers(0, frames, max(0, nodes - frames))])
    rng.shuffle(frame_of[1:])
    stacks: list[tuple[str, ...]] = [()] * nodes  # node 0 is the root: the operation's own samples
    for i in range(1, nodes):
        stacks[i] = stacks[parents[i]] + (labels[frame_of[i]],) if parents[i] > 0 else (labels[frame_of[i]],)
    weights = rng.pareto(1.2, nodes) + 0.01
    counts = rng.multinomial(samples - nodes, weights / weights.sum()) + 1  # every node (frame) sampled
    per_run = rng.multinomial(counts, np.full(RUNS, 1 / RUNS))
    runs = [Counter() for _ in range(RUNS)]
    for r, run in enumerate(runs):
        for i in np.flatnonzero(per_run[:, r]):
            run[stacks[i]] += int(per_run[i, r])  # two nodes may share a stack: add, not replace
    return Profile(runs, {"sampler": "synthetic", "mode": "cpu", "rate": 0, "native": True})


def browser_times(path: Path, repeats: int) -> dict[str, float]:
    from playwright.sync_api import sync_playwright

    best: dict[str, float] = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        for _ in range(repeats):
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            started = time.perf_counter()
            page.goto(path.as_uri())
            page.wait_for_selector("body[data-ready=true]", timeout=120_000)
            load = time.perf_counter() - started
            draw = page.evaluate("window.perflabFlame.renderMs") / 1000
            search = (
                page.evaluate("""() => { const s = document.getElementById('search'); const t = performance.now();
                s.value = 'module_1[0-9]\\\\.py'; s.dispatchEvent(new Event('input'));
                return new Promise(done => { const poll = () => document.getElementById('matched').textContent
                    ? done(performance.now() - t - 120) : setTimeout(poll, 5); poll(); }); }""")
                / 1000
            )
            zoom = (
                page.evaluate("""() => { const app = window.perflabFlame.app; const t = performance.now();
                app.main.zoom = app.main.tree.n > 1 ? 1 : 0; app.main.render(); return performance.now() - t; }""")
                / 1000
            )
            drawn = page.evaluate("window.perflabFlame.state().drawn")
            for key, value in (
                ("load_to_first_draw_s", load),
                ("first_draw_s", draw),
                ("search_s", search),
                ("zoom_redraw_s", zoom),
            ):
                best[key] = min(best.get(key, float("inf")), value)
            best["boxes_drawn"] = drawn
            page.close()
        browser.close()
    return best


def main() -> None:
    arguments = _cli.parser(__doc__)
    arguments.add_argument("--samples", type=int, default=1_000_000, help="samples (default 1,000,000)")
    arguments.add_argument("--frames", type=int, default=50_000, help="distinct functions (default 50,000)")
    arguments.add_argument("--nodes", type=int, default=150_000, help="call-tree nodes (default 150,000)")
    _cli.add_trials(arguments, 3, "page loads", flag="--repeats")
    args = _cli.parse(arguments, samples=10_000, frames=500, nodes=1_500, repeats=1)
    figure = {"figure": "profile_viewer_scale", "machine": machine(), "conditions_start": conditions(), "how": __doc__}
    profile = synthetic_profile(args.samples, args.frames, args.nodes)
    distinct = len({label for run in profile.runs for stack in run for label in stack})
    started = time.perf_counter()
    page = render_html(profile, "synthetic 1M-sample profile", frame_shares(profile.runs))
    generate = time.perf_counter() - started
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "flame.html"
        path.write_text(page, encoding="utf-8")
        size = path.stat().st_size
        times = browser_times(path, args.repeats)
    figure.update(
        {
            "samples": profile.samples,
            "distinct_frames": distinct,
            "tree_nodes": args.nodes,
            "runs": RUNS,
            "generate_s": generate,
            "html_bytes": size,
            **times,
            "conditions_end": conditions(),
        }
    )
    print(
        f"synthetic profile: {profile.samples:,} samples, {distinct:,} distinct frames, {args.nodes:,} call-tree nodes"
    )
    print(f"generate HTML {generate:.2f} s; file {size / 1e6:.1f} MB")
    print(
        f"chromium (best of {args.repeats}): navigation to first draw {times['load_to_first_draw_s']:.2f} s, "
        f"first canvas draw {times['first_draw_s'] * 1000:.0f} ms ({times['boxes_drawn']} boxes), "
        f"search {times['search_s'] * 1000:.0f} ms, zoom redraw {times['zoom_redraw_s'] * 1000:.0f} ms"
    )
    _cli.written(_cli.write_figure("profile_viewer_scale", figure))


if __name__ == "__main__":
    main()
