"""The rules of the code's layout, checked rather than trusted: no import cycles, no module reaching
into another module's private names, and README's layout map true to the tree. (ruff, mypy and the
import-linter contracts run before the tests, as the README's test command says; `python -m perflab
--help` itself is run by e2e/test_verbs_at_defaults.py.)"""

import ast
import re

import grimp
from support.paths import ROOT

SOURCES = [path for path in (ROOT / "src" / "perflab").rglob("*.py") if "builtins" not in path.parts]


def test_no_import_cycles():
    graph = grimp.build_graph("perflab", exclude_type_checking_imports=True)
    modules = [m for m in graph.modules if m.startswith("perflab") and not m.startswith("perflab.builtins")]
    imports = {m: {d for d in graph.find_modules_directly_imported_by(m) if d in modules} for m in modules}
    # A module importing its own package's __init__ is how Python loads it, not a cycle.
    imports = {m: {d for d in found if not m.startswith(d + ".")} for m, found in imports.items()}
    visiting, done, cycles = set(), set(), []

    def visit(module: str, path: list[str]) -> None:
        visiting.add(module)
        for target in sorted(imports[module]):
            if target in visiting:
                cycles.append(path[path.index(target) :] + [target] if target in path else [module, target])
            elif target not in done:
                visit(target, path + [target])
        visiting.discard(module)
        done.add(module)

    for module in sorted(modules):
        if module not in done:
            visit(module, [module])
    assert cycles == []


def test_no_module_uses_another_modules_private_names():
    found = []
    for path in SOURCES:
        tree = ast.parse(path.read_text(), str(path))
        modules = set()  # local names bound to perflab modules
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("perflab"):
                for alias in node.names:
                    if alias.name.startswith("_") and not alias.name.startswith("__"):
                        found.append(f"{path.relative_to(ROOT)}:{node.lineno}: imports {node.module}.{alias.name}")
                    modules.add(alias.asname or alias.name)
            elif isinstance(node, ast.Import):
                modules.update(a.asname or a.name.split(".")[0] for a in node.names if a.name.startswith("perflab"))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in modules
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
            ):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: uses {node.value.id}.{node.attr}")
    assert found == []


def test_the_readme_layout_names_every_package_and_module():
    """README's "Layout" map stays true: every package and top-level module of src/perflab is in it."""
    readme = (ROOT / "README.md").read_text()
    layout = readme[readme.index("## Layout") :]
    layout = layout[: layout.index("```\n", layout.index("```") + 3)]
    package = ROOT / "src" / "perflab"
    missing = [
        path.relative_to(package).as_posix()
        for path in sorted(package.rglob("__init__.py"))
        if path.parent != package
        and path.relative_to(package).parts[0] != "builtins"  # the case studies are data, not layout
        and f"{path.parent.name}/" not in layout
    ] + [path.name for path in sorted(package.glob("*.py")) if path.name not in layout]
    assert missing == [], f"README.md's Layout section does not name {missing}"


def test_every_test_path_named_in_the_tree_exists():
    """A comment, docstring or document that says where something is tested names a file that is
    there (after the tier split, 19 such paths named files that had moved). A user's example
    path in a document (``pytest:tests/bench/test_x.py``) is not one of ours."""
    examples = {"tests/bench/test_x.py"}
    named = re.compile(r"tests/[\w/]+\.py")
    texts = [
        path
        for pattern in (
            "src/**/*.py",
            "tests/**/*.py",
            "tests/**/*.md",
            "benchmarks/**/*.py",
            "benchmarks/**/*.md",
            "docs/**/*.md",
            "*.md",
            "pyproject.toml",
        )  # fmt: skip
        for path in ROOT.glob(pattern)
        if ".venv" not in path.parts
    ]
    missing = {
        f"{path.relative_to(ROOT)}: {found}"
        for path in texts
        for found in named.findall(path.read_text(errors="replace"))
        if found not in examples and not (ROOT / found).exists()
    }
    assert sorted(missing) == []
