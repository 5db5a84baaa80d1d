"""perf's stacks of a CPython 3.13 -X perf_jit process, as py-spy labels them (perflab.profile.perf_sampler),
on a real ``perf script`` recording (tests/data/perf_script: the program and its perf script text)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from perflab.profile.frames import parse_frame
from perflab.profile.native_perf import parse_script
from perflab.profile.perf_sampler import (
    LARGEST_STACK_DUMP,
    STACK_DUMP,
    StacksTooDeep,
    first_lines,
    next_stack_dump,
    python_stacks,
    too_truncated,
    truncated,
)

DATA = Path(__file__).parent.parent / "data" / "perf_script"
PROGRAM = str(DATA / "program.py")
JSON_C = "_json.cpython-313-x86_64-linux-gnu.so"


def recorded() -> list[tuple[str, ...]]:
    """The recording's stacks (root first) from the program's first Python frame (what is below it,
    libc's start, is below measured_region in a profile), its path put back where it was recorded."""
    text = (DATA / "perf_jit.txt").read_text().replace("@DIR@", str(DATA))
    module = f"<module> ({PROGRAM}:1)"
    return [stack[stack.index(module) :] for stack in python_stacks(parse_script(text)) if module in stack]


def names(stack: tuple[str, ...]) -> list[str]:
    return [parse_frame(label).name for label in stack]


def test_python_frames_are_named_as_py_spy_names_them_with_their_first_line():
    stack = next(s for s in recorded() if names(s)[-1] == "ascii_escape_unicode")
    # the decorated method's first line is its decorator's, as py-spy reports it (co_firstlineno)
    assert stack[:3] == (f"<module> ({PROGRAM}:1)", f"main ({PROGRAM}:13)", f"Encoder.run ({PROGRAM}:7)")
    dumps = parse_frame(stack[3])
    assert (dumps.name, Path(dumps.file).parts[-2:]) == ("dumps", ("json", "__init__.py"))


def test_the_interpreters_frames_between_python_calls_are_dropped_and_c_frames_keep_their_library():
    stack = next(s for s in recorded() if names(s)[-1] == "ascii_escape_unicode")
    assert names(stack) == [
        "<module>",
        "main",
        "Encoder.run",
        "dumps",
        "JSONEncoder.encode",
        "JSONEncoder.iterencode",
        "encoder_call",
        "encoder_listencode_obj",
        "encoder_listencode_dict",
        "encoder_encode_key_value",
        "encoder_listencode_obj",
        "encoder_listencode_list",
        "encoder_listencode_obj",
        "py_encode_basestring_ascii",
        "ascii_escape_unicode",  # inlined: perf names it, with the library of the function it is inlined into
    ]
    assert stack[-1] == f"ascii_escape_unicode ({JSON_C})"


def test_the_evaluation_loop_is_the_python_functions_own_time():
    # a sample in _PyEval_EvalFrameDefault running JSONEncoder.encode's bytecode
    assert names(next(s for s in recorded() if len(s) == 5)) == [
        "<module>",
        "main",
        "Encoder.run",
        "dumps",
        "JSONEncoder.encode",
    ]


def test_an_interpreter_function_called_by_an_extension_is_kept():
    stack = next(s for s in recorded() if names(s)[-1] == "_PyThreadState_GetCurrent")
    # under frames inlined into the extension (their library is the extension's, as perf places them)
    assert stack[-4:] == (
        f"encoder_listencode_obj ({JSON_C})",
        f"_Py_EnterRecursiveCall ({JSON_C})",
        f"_PyThreadState_GET ({JSON_C})",
        "_PyThreadState_GetCurrent (libpython3.13.so.1.0)",
    )


def test_kernel_frames_are_dropped_and_their_time_stays_with_the_frame_that_entered_the_kernel():
    text = (DATA / "perf_jit.txt").read_text()
    assert "[kernel.kallsyms]" in text
    text = text.replace("@DIR@", str(DATA))
    assert not any("kernel" in label for stack in python_stacks(parse_script(text)) for label in stack)
    assert len(recorded()) == 5  # the sixth sample: the dynamic loader at start-up, no Python frame


def test_first_lines_follow_the_compiler_for_nested_decorated_and_class_scopes(tmp_path):
    source = tmp_path / "scopes.py"
    source.write_text(
        "import functools\n"
        "\n"
        "class Outer:\n"
        "    class Inner:\n"
        "        @functools.cache\n"
        "        @staticmethod\n"
        "        def method():\n"
        "            def helper():\n"
        "                return [x for x in range(3)]\n"
        "            return helper\n"
        "\n"
        "square = lambda x: x * x\n"
    )
    lines = first_lines(str(source))
    assert lines["<module>"] == 1
    assert lines["Outer"] == 3 and lines["Outer.Inner"] == 4
    assert lines["Outer.Inner.method"] == 5  # the first decorator's line
    assert lines["Outer.Inner.method.<locals>.helper"] == 8
    assert lines["<lambda>"] == 12
    assert first_lines(str(tmp_path / "missing.py")) == {}  # its frames then carry no line


def test_a_stack_cut_before_the_threads_root_is_counted_as_truncated():
    stacks = parse_script((DATA / "perf_jit.txt").read_text().replace("@DIR@", str(DATA)))
    assert truncated(stacks) == 0  # every sample reaches _start (the interpreter's, or the loader's at start-up)
    # what perf gives when the stack dump ends before the root: the outer frames are missing
    cut = {stack[3:]: count for stack, count in stacks.items()}
    assert truncated(cut) == sum(stacks.values())


def test_only_a_stack_cut_before_measured_region_is_truncated():
    """The harness above measured_region is trimmed from every profile: a stack dump that ends there
    loses nothing; one that ends below it leaves the sample out of the operation."""
    region = "py::measured_region:/site/perflab/bench/worker/region.py (jitted-1-2.so)"
    harness = "py::run_profile:/site/perflab/bench/worker/profiling.py (jitted-1-1.so)"
    whole = ("_start (python3.13)", harness, region, "py::work:/p/bench.py (jitted-1-3.so)", "encoder_call (_json.so)")
    stacks = Counter({whole: 5, whole[1:]: 3, whole[2:]: 4, whole[3:]: 2})
    assert truncated(stacks) == 2


def test_the_stack_dump_grows_fourfold_after_a_run_with_more_than_one_percent_truncated():
    assert next_stack_dump(STACK_DUMP, 2, 200) == STACK_DUMP  # 1%: kept
    assert not too_truncated(2, 200) and too_truncated(3, 200)
    assert next_stack_dump(STACK_DUMP, 3, 200) == 4 * STACK_DUMP == 32768
    assert next_stack_dump(4 * STACK_DUMP, 3, 200) == LARGEST_STACK_DUMP
    assert next_stack_dump(LARGEST_STACK_DUMP, 0, 200) == LARGEST_STACK_DUMP
    with pytest.raises(StacksTooDeep, match="use --sampler py-spy"):
        next_stack_dump(LARGEST_STACK_DUMP, 3, 200)
