"""The offload what-if (perflab.profile.offload): the co-design reports' arithmetic reproduced from
their own inputs (CASE_STUDIES.md section 7), the model's invariants, and the command line."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from perflab.cli import main
from perflab.profile.model import Profile
from perflab.profile.offload import (
    PRESETS,
    OffloadError,
    Work,
    break_even,
    device_time,
    format_speedup,
    parse_device,
    parse_size,
    predict,
    speedup,
)
from perflab.render.terminal.profile import format_share
from perflab.results.quantities import Interval

# "~1 us per 1 kB one way" on PCIe 3 (8 Gb/s): the reports' rounding of the link is 1 KiB per us.
REPORT_LINK = "link=1.024GB/s,latency=0us"
KIB32 = 32 * 1024


def test_escaping_on_an_accelerator_reproduces_about_two_percent():
    # software: 8 cycles per byte on 4 threads at 1 GHz for a 32 KiB string: 65.5 us
    software = KIB32 * 8 / 4 / 1e9
    device = parse_device(f"{REPORT_LINK},fixed=512")  # 512 cycles of logic, the work in the link
    work = Work(KIB32, KIB32, 0)
    transfer, total = device_time(device, work)
    assert software == pytest.approx(65.5e-6, abs=0.1e-6)
    assert transfer == pytest.approx(64e-6) and total == pytest.approx(64.5e-6, abs=0.05e-6)
    assert speedup(software, 1.0, device, work) == pytest.approx(1.016, abs=0.002)  # "about 2%"
    assert speedup(software, 1.0, device, work, 1e6) == pytest.approx(65.536 / 64, abs=1e-4)  # at most 2.4%


def test_number_formatting_in_a_pipeline_reproduces_x2_and_thirty_percent_by_amdahl():
    floats = KIB32 // 4
    software = floats * 75 / 4 / 1e9  # RYU: ~75 cycles per float on 4 threads
    device = parse_device(f"{REPORT_LINK},depth=15,per-cycle=1")
    work = Work(KIB32, KIB32, floats)
    assert software == pytest.approx(153.6e-6)
    assert device_time(device, work)[1] == pytest.approx(72.2e-6, abs=0.05e-6)  # 64 us + 8.2 us
    alone = speedup(software, 1.0, device, work)
    assert alone == pytest.approx(2.13, abs=0.01)  # "x2"
    # "by Amdahl about 30% for a number-heavy document": formatting 44% of the document's time
    share = 0.44
    assert speedup(software / share, share, device, work) == pytest.approx(1.30, abs=0.01)


def test_the_break_even_size_is_where_the_speedup_crosses_one():
    rng = random.Random(3)
    for _ in range(200):
        device = parse_device(
            f"link={rng.uniform(0.1, 30):.3f}GB/s,latency={rng.uniform(0, 5):.3f}us,"
            f"depth={rng.randint(0, 50)},fixed={rng.randint(0, 2000)},per-cycle={rng.uniform(0.1, 8):.3f}"
        )
        work = Work(rng.uniform(0, 1e5), rng.uniform(0, 1e5), rng.uniform(0, 1e5))
        time, share = rng.uniform(1e-6, 1e-3), rng.uniform(0.01, 0.99)
        factor = break_even(time, share, device, work)
        if factor is None:  # the device never catches up: slower at every size
            assert all(speedup(time, share, device, work, f) <= 1 + 1e-9 for f in (1e-3, 1, 1e3, 1e6))
        else:
            assert speedup(time, share, device, work, factor) == pytest.approx(1.0, rel=1e-9)
            assert speedup(time, share, device, work, factor * 2) > 1 > speedup(time, share, device, work, factor / 2)


def test_predict_takes_the_share_with_callees_and_keeps_its_interval():
    # 60% of samples under 'escape' (one third of them in its callee 'scan'), in five runs
    rng = random.Random(5)
    runs = []
    for _ in range(5):
        inside = sum(rng.random() < 0.6 for _ in range(2000))
        runs.append(
            Counter(
                {
                    ("main", "escape"): inside * 2 // 3,
                    ("main", "escape", "scan"): inside - inside * 2 // 3,
                    ("main", "other"): 2000 - inside,
                }
            )
        )
    offload = predict(runs, [10e-6, 11e-6, 9e-6, 10e-6, 12e-6], "escape", PRESETS["on-core"], Work(0, 0, 0))
    assert offload.frames == ["escape"]
    assert offload.share.low < 0.6 < offload.share.high and offload.share.high - offload.share.low < 0.05
    assert offload.time_per_call.value == 10e-6 and offload.time_per_call.low == 9e-6
    # a free, infinitely fast device is Amdahl's bound, and the interval is ordered
    assert offload.speedup.value == pytest.approx(offload.amdahl.value)
    assert offload.speedup.low <= offload.speedup.value <= offload.speedup.high
    assert offload.break_even == 0.0  # nothing to amortize


def test_predict_refuses_an_unknown_frame_and_a_profile_without_times():
    runs = [Counter({("main", "escape"): 10})]
    with pytest.raises(OffloadError, match="no frame"):
        predict(runs, [1e-6], "nothing_like_it", PRESETS["on-core"], Work(0, 0, 0))
    with pytest.raises(OffloadError, match="time per call"):
        predict(runs, [], "escape", PRESETS["on-core"], Work(0, 0, 0))


@pytest.mark.parametrize(
    "spec, message",
    [
        ("pcie9x1", "unknown device"),
        ("pcie3x1,speed=2", "unknown setting"),
        ("link=fast", "not a valid link"),
        ("latency=-1us", "not a valid latency"),
        ("clock=0GHz", "not a valid clock"),
        ("per-cycle=nan", "not a valid per-cycle"),
    ],
)
def test_a_bad_device_is_named_with_what_is_accepted(spec, message):
    with pytest.raises(OffloadError, match=message):
        parse_device(spec)


def test_links_in_bits_and_bytes_and_sizes_with_prefixes():
    assert parse_device("link=8Gb/s").bandwidth == parse_device("link=1GB/s").bandwidth == 1e9
    assert parse_device("pcie4x16,latency=2us").latency == 2e-6
    assert parse_device("pcie3x1").bandwidth == pytest.approx(0.985e9)
    assert parse_device("on-core").bandwidth is None
    assert (parse_size("32KiB"), parse_size("1.5MB"), parse_size("4096")) == (32768, 1.5e6, 4096)
    with pytest.raises(OffloadError):
        parse_size("lots")


def _profile_file(tmp_path):
    runs = [Counter({("measured_region", "dumps", "escape"): 60, ("measured_region", "dumps"): 40}) for _ in range(3)]
    profile = Profile(runs, {"sampler": "py-spy", "run_info": [{"time_per_call": t} for t in (64e-6, 66e-6, 65e-6)]})
    path = tmp_path / "escape.profile.json"
    profile.save(path)
    return path


def test_merge_prints_the_offload_prediction_with_its_size_table(tmp_path, capsys):
    path = _profile_file(tmp_path)
    assert main(["merge", str(path), "--offload", "escape", "--device", "pcie3x16", "--transfer", "32KiB"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "offload escape (escape; with callees 60.0%" in out
    assert "the operation would be" in out and "Amdahl's bound" in out and "2.50x faster" in out
    assert "offload by input size" in out and "1/64x" in out and "64x" in out


@pytest.mark.parametrize(
    "options, message",
    [
        (["--device", "pcie3x1"], "--device describes an --offload: give --offload FRAME too"),
        (["--offload", "escape"], "needs --transfer BYTES"),
        (["--offload", "escape", "--device", "pcie3x1,speed=2", "--transfer", "1KiB"], "unknown setting 'speed'"),
        (["--offload", "escape", "--transfer", "much"], "is not a size in bytes"),
    ],
)
def test_offload_options_are_checked_before_anything_is_read(tmp_path, capsys, options, message):
    missing = tmp_path / "not-there.json"  # an input error would come later than the options' own
    try:
        code = main(["merge", str(missing), *options])
    except SystemExit as exit:  # argparse's own errors (a value its type refuses)
        code = exit.code
    assert code == 2
    err = capsys.readouterr().err
    assert message in " ".join(err.split()) and "Traceback" not in err


def test_an_offload_of_a_frame_the_profile_lacks_is_a_usage_error_after_the_tables(tmp_path, capsys):
    path = _profile_file(tmp_path)
    assert main(["merge", str(path), "--offload", "nothing_like_it", "--device", "on-core"]) == 2
    captured = capsys.readouterr()
    assert "top" in captured.out and "no frame of the profile matches" in captured.err


def test_the_json_carries_the_prediction_the_terminal_prints(tmp_path, capsys):
    path, written, page = _profile_file(tmp_path), tmp_path / "with-offload.json", tmp_path / "flame.html"
    options = ["--offload", "escape", "--device", "pcie3x16", "--transfer", "32KiB"]
    assert main(["merge", str(path), *options, "--json", str(written), "--html", str(page)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    saved = json.loads(written.read_text())
    offload = saved["offload"]
    assert offload["pattern"] == "escape" and offload["frames"] == ["escape"]
    assert offload["device"]["name"] == "pcie3x16" and offload["work"] == {
        "bytes_in": 32768,
        "bytes_out": 32768,
        "units": 32768,
    }
    share, amdahl, speedup = offload["share"], offload["amdahl"], offload["speedup"]
    assert share["low"] <= share["value"] <= share["high"] and share["value"] == pytest.approx(0.6)
    assert f"with callees {format_share(Interval(**share))}" in out
    assert f"Amdahl's bound (an infinitely fast device, a free link) {format_speedup(Interval(**amdahl))}" in out
    assert f"the operation would be {format_speedup(Interval(**speedup))}" in out
    software = offload["software_time"]["value"]
    assert software == pytest.approx(share["value"] * offload["time_per_call"]["value"])
    assert offload["device_time"] > offload["transfer_time"] > 0
    factors = [point["factor"] for point in offload["sizes"]]
    assert factors[0] == 1 / 64 and factors[-1] == 64 and len(factors) == 13
    assert [p["bytes_in"] for p in offload["sizes"]] == [f * 32768 for f in factors]
    for point in offload["sizes"]:
        assert format_speedup(Interval(**point["speedup"])) in out
    break_even = offload["break_even"]
    assert break_even["bytes_in"] == pytest.approx(break_even["factor"] * 32768)
    assert f"it pays from {break_even['factor']:.3g}x this call's size on" in out
    # the flame graph page draws the same prediction's size chart
    html = page.read_text()
    assert "<svg class='offload-chart'" in html and format_speedup(Interval(**speedup)) in html
    # the written file is still a profile that merge reads, and without --offload it has no prediction
    assert main(["merge", str(written), "--json", str(tmp_path / "plain.json")]) == 0
    assert "offload" not in json.loads((tmp_path / "plain.json").read_text())


def test_an_infinite_bound_is_written_as_json_can_hold_it():
    runs = [Counter({("main", "escape"): 10})]
    offload = predict(runs, [1e-6], "escape", PRESETS["on-core"], Work(0, 0, 0))
    written = json.loads(json.dumps(offload.to_json(), allow_nan=False))
    assert written["amdahl"]["value"] == written["amdahl"]["high"] == "inf" and written["break_even"]["factor"] == 0
