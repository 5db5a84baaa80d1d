"""pyperf scripts loaded as pyperf and pyperformance run them: the script as ``__main__`` (runpy's
module, not a dict of builtins), pyperf's command line and Runner API, and pyperformance's MANIFEST
with each benchmark's metadata file (its name, script and extra options)."""

import textwrap

import pytest

from perflab import pyperformance_benchmarks
from perflab.bench import pyperf_script
from perflab.bench.loading import load_benchmark
from perflab.bench.spec import BenchmarkFileError


def script(tmp_path, body, name="bm_s.py"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return path


ARGS_SCRIPT = """
    import pyperf
    runner = pyperf.Runner(hooks=[])
    runner.argparser.add_argument("which", nargs="?", default="none")
    args = runner.parse_args()
    runner.bench_func(args.which, lambda: 1)
"""


def test_script_runs_in_a_main_module_with_the_builtins_module(tmp_path):
    path = script(
        tmp_path,
        """
        import builtins, pyperf
        __builtins__.open = open  # sphinx's script does this: under python, __builtins__ is the module
        assert __builtins__ is builtins and __spec__ is None and __name__ == "__main__"
        assert __loader__ is not None and __package__ is None and __file__.endswith("bm_s.py")
        pyperf.Runner().bench_func("one", lambda: 1)
    """,
    )
    assert list(load_benchmark(path).cases) == ["one"]


@pytest.mark.parametrize("options", ["-q", "-m", "-t", "-g", "--in-process", "-v --fast -p 3 -n 4 -w 1 -l 8"])
def test_pyperf_options_are_accepted(tmp_path, monkeypatch, options):
    monkeypatch.setenv(pyperf_script.ARGS_VARIABLE, f"{options} mine")
    assert list(load_benchmark(script(tmp_path, ARGS_SCRIPT)).cases) == ["mine"]


def test_d_is_pyperfs_dump_flag_not_an_option_with_a_value(tmp_path, monkeypatch):
    monkeypatch.setenv(pyperf_script.ARGS_VARIABLE, "-d mine")
    assert list(load_benchmark(script(tmp_path, ARGS_SCRIPT)).cases) == ["mine"]


@pytest.mark.parametrize(("options", "said"), [("-o out.json", "--pyperf DIR"), ("--track-memory", "--metric memory")])
def test_pyperf_options_perflab_does_otherwise_are_refused_by_name(tmp_path, monkeypatch, options, said):
    monkeypatch.setenv(pyperf_script.ARGS_VARIABLE, options)
    with pytest.raises(BenchmarkFileError) as raised:
        load_benchmark(script(tmp_path, ARGS_SCRIPT))
    message = str(raised.value)
    assert pyperf_script.ARGS_VARIABLE in message and options.split()[0] in message and said in message


def test_return_values_of_timed_functions_are_not_compared(tmp_path):
    benchmark = load_benchmark(script(tmp_path, ARGS_SCRIPT))
    outcome = benchmark.comparator.check(0.25, 0.75)  # a function returning its own elapsed time
    assert outcome.equivalent and not benchmark.comparator.compares and "not compared" in outcome.note


def write_suite(root):
    """A pyperformance-like benchmarks directory: a script taking its variant as an argument."""
    (root / "bm_base").mkdir(parents=True)
    (root / "bm_base" / "run_benchmark.py").write_text(textwrap.dedent(ARGS_SCRIPT))
    (root / "bm_base" / "pyproject.toml").write_text('[tool.pyperformance]\nname = "base_x"\nextra_opts = ["x"]\n')
    (root / "bm_base" / "bm_variant.toml").write_text('[tool.pyperformance]\nextra_opts = ["y"]\n')
    (root / "bm_base" / "bm_plain.toml").write_text('[tool.pyperformance]\nname = "plain"\n')  # inherits ["x"]
    (root / "MANIFEST").write_text(
        "[benchmarks]\n\nname\tmetafile\nbase\t<local>\nvariant\t<local:base>\n"
        "# gone\t<local>\nplain\t<local:base>\n\n[group default]\n"
    )


def test_manifest_names_resolve_to_their_metadata_with_its_options(tmp_path):
    write_suite(tmp_path)
    found = pyperformance_benchmarks.read_manifest(tmp_path / "MANIFEST")
    assert sorted(found) == ["base", "plain", "variant"]
    loaded = {name: load_benchmark(path) for name, path in found.items()}
    # named as pyperformance names them (the MANIFEST's name), the script run with the file's options
    assert {name: (b.name, list(b.cases)) for name, b in loaded.items()} == {
        "base": ("base", ["x"]),
        "variant": ("variant", ["y"]),
        "plain": ("plain", ["x"]),  # what the variant's file does not say comes from the folder's pyproject.toml
    }


def test_bad_metadata_is_a_clear_file_error(tmp_path):
    write_suite(tmp_path)
    (tmp_path / "bm_base" / "bm_variant.toml").write_text('[tool.pyperformance]\nextra_opts = "y"\n')
    with pytest.raises(BenchmarkFileError, match="bm_variant.toml: extra_opts must be a list"):
        load_benchmark(tmp_path / "bm_base" / "bm_variant.toml")
    (tmp_path / "bm_base" / "bm_variant.toml").write_text('[tool.pyperformance]\nrunscript = "gone.py"\n')
    with pytest.raises(BenchmarkFileError, match="gone.py does not exist"):
        load_benchmark(tmp_path / "bm_base" / "bm_variant.toml")


@pytest.mark.skipif(not pyperformance_benchmarks.names(), reason="pyperformance is not installed")
def test_every_name_of_the_installed_manifest_is_addressable():
    from perflab.bench import pyperformance_metafile

    found = pyperformance_benchmarks.manifest()
    assert {"pickle_dict", "async_tree_io", "unpickle", "argparse", "sqlglot_v2_parse"} <= set(found)
    for name, path in found.items():
        assert pyperformance_benchmarks.path_of(f"pyperformance:{name}", ValueError) == path
        assert pyperformance_metafile.read(str(path)).name == name
    assert pyperformance_metafile.read(str(found["pickle_dict"])).extra_opts == ("pickle_dict",)


def test_a_missing_module_names_the_benchmarks_requirements(tmp_path):
    write_suite(tmp_path)
    (tmp_path / "bm_base" / "run_benchmark.py").write_text("import pyperf\nimport no_such_module_here\n")
    (tmp_path / "bm_base" / "requirements.txt").write_text("no_such_module_here==1.0\n")
    with pytest.raises(BenchmarkFileError) as raised:
        load_benchmark(tmp_path / "bm_base" / "bm_variant.toml")
    assert f"pip install -r {tmp_path / 'bm_base' / 'requirements.txt'}" in str(raised.value)
