"""What a change touched (perflab.measure.changed_code): functions by syntax tree, the whole module
for its own code, and everything for what cannot be mapped; git in a temporary directory."""

from __future__ import annotations

import ast
import textwrap

import pytest
from support.git_repos import committed

from perflab.measure.changed_code import MODULE, changes, unit_at, unit_sources
from perflab.measure.settings import Settings

BEFORE = '''\
"""A module."""
import json

LIMIT = 10


def parse(text):
    return json.loads(text)


@staticmethod
def helper(x, y=1):
    def nested(z):
        return z + 1
    return nested(x) + y


class Parser:
    kind = "fast"

    def feed(self, data):
        return parse(data)

    @property
    def size(self):
        return 1

    @size.setter
    def size(self, value):
        self._size = value

    class Inner:
        def close(self):
            return None
'''


def changed(tmp_path, after, before=BEFORE, path="pkg/mod.py"):
    """The changes when ``path`` goes from ``before`` to ``after`` in a committed repository."""
    commit = committed(tmp_path, {path: before, "bench.py": "import perflab\n"})
    if after is None:
        (tmp_path / path).unlink()
    else:
        (tmp_path / path).write_text(after)
    return changes(tmp_path, commit, tmp_path / "bench.py")


@pytest.mark.parametrize(
    ("old", "new", "unit"),
    [
        ("return json.loads(text)", "return json.loads(text) or None", "parse"),  # body
        ("@staticmethod\ndef helper", "@classmethod\ndef helper", "helper"),  # decorator
        ("def helper(x, y=1)", "def helper(x, y=2)", "helper"),  # signature
        ("return z + 1", "return z + 2", "helper"),  # a nested function is part of its function
        ("return parse(data)", "return parse(data[:])", "Parser.feed"),  # a method
        ("self._size = value", "self._size = int(value)", "Parser.size"),  # a property's setter
        ("return 1\n", "return 2\n", "Parser.size"),  # ... and its getter, of the same name
        ("return None", "return 0", "Parser.Inner.close"),  # a nested class's method
    ],
)
def test_a_changed_function_is_named_and_nothing_else(tmp_path, old, new, unit):
    found = changed(tmp_path, BEFORE.replace(old, new, 1))
    assert found.functions == {"pkg/mod.py": {unit}}
    assert not found.modules and not found.unmapped
    assert found.count() == "1 changed function"


def test_moved_code_and_comments_are_no_change(tmp_path):
    after = BEFORE.replace("LIMIT = 10\n", "LIMIT = 10\n# a comment\n\n\n").replace("    kind", "    # why\n    kind")
    found = changed(tmp_path, after)
    assert not found.functions and not found.modules and not found.unmapped


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("LIMIT = 10", "LIMIT = 11"),  # a constant any function may read
        ("import json", "import json as json"),
        ('kind = "fast"', 'kind = "slow"'),  # a class attribute
        ("class Parser:", "class Parser(dict):"),  # a base
    ],
)
def test_a_change_to_module_code_is_the_whole_module(tmp_path, old, new):
    found = changed(tmp_path, BEFORE.replace(old, new, 1))
    assert found.modules == {"pkg/mod.py"} and not found.functions
    assert found.count() == "0 changed functions and 1 changed module"


def test_added_and_deleted_functions_are_changes(tmp_path):
    after = BEFORE.replace("    @property", "    def reset(self):\n        pass\n\n    @property").replace(
        "def parse(text):\n    return json.loads(text)\n", ""
    )
    found = changed(tmp_path, after)
    assert found.functions == {"pkg/mod.py": {"Parser.reset", "parse"}}


def test_a_deleted_and_a_new_module(tmp_path):
    found = changed(tmp_path, None)
    assert found.functions["pkg/mod.py"] >= {"parse", "Parser.feed"} and found.modules == {"pkg/mod.py"}
    (tmp_path / "pkg" / "new.py").write_text("def fresh():\n    return 1\n")
    found = changes(tmp_path, "HEAD", tmp_path / "bench.py")
    assert found.functions["pkg/new.py"] == {"fresh"}


@pytest.mark.parametrize(
    ("path", "after", "said"),
    [
        ("pkg/scan.c", "int main() { return 1; }", "pkg/scan.c changed, and is not Python source"),
        ("pkg/config.toml", "x = 2", "pkg/config.toml changed, and is not Python source"),
        ("pkg/mod.py", "def broken(:\n", "pkg/mod.py does not parse"),
        ("bench.py", "import perflab  # changed\n", "the benchmark (bench.py) changed"),
    ],
)
def test_what_cannot_be_mapped_is_said(tmp_path, path, after, said):
    found = changed(tmp_path, BEFORE)
    (tmp_path / path).write_text(after)
    found = changes(tmp_path, "HEAD", tmp_path / "bench.py")
    assert any(line.startswith(said) for line in found.unmapped), found.unmapped


def test_perflabs_own_store_is_no_change(tmp_path):
    """The default store, .perflab/perflab.db at the top level, is written by every run: counted as a
    changed data file, it made every check --affected run everything."""
    changed(tmp_path, BEFORE)
    (tmp_path / ".perflab").mkdir()
    (tmp_path / ".perflab" / "perflab.db").write_bytes(b"runs")
    found = changes(tmp_path, "HEAD", tmp_path / "bench.py")
    assert not found.unmapped and not found.modules and not found.functions


def test_bytecode_caches_are_no_change(tmp_path):
    """Importing the benchmark writes __pycache__/bench.cpython-311.pyc (perflab check does, before it
    selects): in a repository that does not ignore it, every check --affected ran everything."""
    changed(tmp_path, BEFORE)
    for folder in (tmp_path / "__pycache__", tmp_path / "pkg" / "__pycache__"):
        folder.mkdir()
        (folder / "mod.cpython-311.pyc").write_bytes(b"\x00")
    found = changes(tmp_path, "HEAD", tmp_path / "bench.py")
    assert not found.unmapped and not found.modules and not found.functions


def test_unit_at_maps_a_code_objects_first_line_to_its_function():
    source = textwrap.dedent(BEFORE)
    tree = ast.parse(source)
    lines = source.splitlines()

    def line_of(text):
        return next(number for number, line in enumerate(lines, 1) if line.strip().startswith(text))

    assert unit_at(tree, line_of("@staticmethod")) == "helper"  # a decorated function starts at its decorator
    assert unit_at(tree, line_of("def nested")) == "helper"
    assert unit_at(tree, line_of("def feed")) == "Parser.feed"
    assert unit_at(tree, line_of("@size.setter")) == "Parser.size"
    assert unit_at(tree, line_of("def close")) == "Parser.Inner.close"
    assert unit_at(tree, line_of("class Parser")) == MODULE  # a class body is module code
    assert unit_at(tree, 1) == MODULE
    assert unit_at(tree, 0) == MODULE  # what a reach worker says for a module's own code
    assert set(unit_sources(source)) == {MODULE, "parse", "helper", "Parser.feed", "Parser.size", "Parser.Inner.close"}


def test_a_change_of_comments_only_skips_every_cell_without_tracing(tmp_path, monkeypatch):
    from perflab.measure import affected

    monkeypatch.setattr(affected, "run_job", None)  # a tripwire: nothing may be traced
    commit = committed(tmp_path, {"pkg/mod.py": BEFORE, "bench.py": "import perflab\n"})
    (tmp_path / "pkg" / "mod.py").write_text(BEFORE + "# a comment\n")
    selection = affected.select(tmp_path / "bench.py", commit, commit, ["A", "B"], ["x"], Settings())
    assert not selection.run
    assert selection.skipped == [
        ("A", "x", "no function or module changed"),
        ("B", "x", "no function or module changed"),
    ]
