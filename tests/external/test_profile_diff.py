"""Differential profiles: time per call (not sample counts), intervals, the sentence, refusals; the report's escaping."""

from collections import Counter

import numpy as np
import pytest

from perflab.profile.diff import CONTENDER, diff_profiles
from perflab.profile.model import IncomparableProfiles, Profile
from perflab.render.html import report as report_html

PY = {"implementation": "CPython", "version": "3.11.7", "executable": "/usr/bin/python3"}

ENC = "encode (<project>/lib.py:10)"

PAD = "pad (<project>/lib.py:20)"

DUMPS = "dumps (<stdlib>/json/__init__.py:231)"


def profile(runs, per_call, contender="c", paired=True, **metadata):
    """A profile from [{stack: samples}] runs, each with its time per call (seconds)."""
    info = [
        {"time_per_call": t, "samples": sum(r.values()), **({"round": i} if paired else {})}
        for i, (r, t) in enumerate(zip(runs, per_call))
    ]
    meta = {
        "sampler": "py-spy",
        "mode": "cpu",
        "native": False,
        "python": PY,
        "contender": contender,
        "benchmark_file": "/x/bench.py",
        "run_info": info,
        **metadata,
    }
    return Profile([Counter(r) for r in runs], meta)


def test_time_per_call_not_sample_counts():
    # Same code sampled at different rates/durations: 10x the samples, same shares and time -> no difference.
    a = profile([{(ENC, DUMPS): 80, (ENC,): 20}] * 4, [10e-6] * 4)
    b = profile([{(ENC, DUMPS): 800, (ENC,): 200}] * 4, [10e-6] * 4)
    diff = diff_profiles(a, b)
    assert diff.operation.difference.value == pytest.approx(0)
    assert diff.nodes[("encode (<project>/lib.py)", "dumps (<stdlib>/json/__init__.py)")].a == pytest.approx(8e-6)
    assert "no detectable difference" in diff.explain()


def test_injected_slowdown_is_named_with_its_share():
    rng = np.random.default_rng(1)
    runs_a, runs_b, t_a, t_b = [], [], [], []
    for _ in range(6):
        noise = rng.normal(1, 0.01)
        runs_a.append({(ENC, DUMPS): 90, (ENC, PAD): 10})
        t_a.append(10e-6 * noise)
        runs_b.append({(ENC, DUMPS): 90, (ENC, PAD): 40})  # pad takes 3 us more of 13 us
        t_b.append(13e-6 * noise)
    diff = diff_profiles(profile(runs_a, t_a), profile(runs_b, t_b), ("v1", "v2"))
    pad = diff.nodes[("encode (<project>/lib.py)", "pad (<project>/lib.py)")]
    assert pad.difference.value == pytest.approx(3e-6, rel=0.05) and pad.difference.low > 0
    sentence = diff.explain()
    assert sentence.startswith("v2 vs v1: 10 us -> 13 us per call (+3.01 us")
    assert sentence.endswith("100% of the 3.01 us added is in encode -> pad")


def test_a_function_s_line_does_not_split_it_and_contenders_line_up():
    a = profile([{("base (/x/bench.py:5)", "f (<project>/lib.py:3)"): 10}] * 3, [1e-6] * 3, contender="base")
    b = profile([{("fast (/x/bench.py:9)", "f (<project>/lib.py:4)"): 10}] * 3, [0.5e-6] * 3, contender="fast")
    diff = diff_profiles(a, b)
    node = diff.nodes[(CONTENDER, "f (<project>/lib.py)")]
    assert node.a == pytest.approx(1e-6) and node.b == pytest.approx(0.5e-6)
    assert "saved" in diff.explain()


@pytest.mark.parametrize(
    "key, value, said",
    [
        ("sampler", "inprocess", "sampler"),
        ("mode", "wall", "sampling mode"),
        ("python", {**PY, "version": "3.12.1"}, "interpreters"),
    ],
)
def test_refuses_different_instruments_unless_asked(key, value, said):
    a = profile([{(ENC,): 10}] * 2, [1e-6] * 2)
    b = profile([{(ENC,): 10}] * 2, [1e-6] * 2, **{key: value})
    with pytest.raises(IncomparableProfiles, match=f"{said}.*--allow-mismatch"):
        diff_profiles(a, b)
    allowed = diff_profiles(a, b, allow_mismatch=True)
    assert any("diffed although" in note for note in allowed.notes)


def test_timed_scale_uses_the_timing_phase_and_widens_intervals():
    a = profile([{(ENC, PAD): 50, (ENC,): 50}] * 4, [99.0] * 4)  # profiled times ignored when timed
    b = profile([{(ENC, PAD): 75, (ENC,): 25}] * 4, [99.0] * 4)
    from perflab.analysis.estimates import Interval

    diff = diff_profiles(a, b, timed=(2e-6, 4e-6), timed_difference=Interval(2e-6, 1.5e-6, 2.5e-6))
    assert diff.operation.a == pytest.approx(2e-6) and diff.operation.difference.low == pytest.approx(1.5e-6)
    pad = diff.nodes[("encode (<project>/lib.py)", "pad (<project>/lib.py)")]
    assert pad.difference.value == pytest.approx(2e-6)  # 1 us -> 3 us
    assert pad.difference.low < pad.difference.value < pad.difference.high  # the timing error is carried


def test_report_escapes_user_text(tmp_path):
    from perflab.profile.side_profiles import CaseProfiles
    from perflab.results.model import Cell, Equivalence, RunResult

    evil = "</script><img src=x onerror=alert(1)>"
    result = RunResult(
        benchmark=evil,
        file="/x/bench.py",
        reference="base",
        settings={},
        metadata={},
        work={},
        cells=[Cell(evil, "base")],
        equivalence=[Equivalence(evil, "base", "reference")],
    )
    a = profile([{(f"{evil} (<project>/lib.py:1)",): 10}] * 2, [1e-6] * 2)
    entry = CaseProfiles(evil, "base", "other", a, a, diff_profiles(a, a))
    page = report_html.render([report_html.Section(result, [entry], [evil])], evil)
    assert "<img src=x" not in page.replace("&lt;img src=x", "")
    assert page.count("<script") == page.count("</script>")
