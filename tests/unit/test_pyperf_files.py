"""--pyperf DIR and export --pyperf: one file per contender, and never one file for two (issue 42:
contenders ``a/b`` and ``a_b`` were both written to ``a_b.json``, one of them lost, exit 0)."""

from __future__ import annotations

from support.store_results import synthetic_result

from perflab.results import pyperf


def test_contenders_whose_names_make_one_file_name_get_a_file_each(tmp_path):
    names = ["a/b", "a_b", "A_B", "plain"]
    result = synthetic_result(contender=names[0])
    for index, name in enumerate(names[1:], start=1):
        result.cells.append(synthetic_result(contender=name, time=1e-5 * (index + 1), seed=index).cells[0])
    written = pyperf.export(result, tmp_path)
    assert len(written) == len(set(written)) == len({path.name.lower() for path in written}) == 4
    # a safe name is kept as it is, unless another differs from it only in case (macOS would merge them)
    assert "plain.json" in {path.name for path in written} and "a_b.json" not in {path.name for path in written}
    read_back = {}
    for path in written:
        [cell] = pyperf.load(path, "bench", path.stem).cells
        read_back[path.stem] = _floats(cell.process_values())
    assert sorted(read_back.values()) == sorted(_floats(cell.process_values()) for cell in result.cells)


def _floats(processes) -> tuple:
    return tuple(float(value) for values in processes for value in values)


def test_a_contender_named_as_another_s_file_still_gets_its_own():
    hashed = pyperf.file_names("bench", ["a/b"])["a/b"].removesuffix(".json")
    names = pyperf.file_names("bench", ["a/b", hashed])
    assert len({name.lower() for name in names.values()}) == 2
