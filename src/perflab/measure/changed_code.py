"""What a change touched: the Python functions that differ between a git revision and the working
tree, found by comparing syntax trees (not lines), for ``perflab check --affected``.

A *unit* of a module is a function or method (``parse``, ``Parser.feed``, ``Outer.Inner.close``):
its decorators, signature and body, functions nested in it included. Everything else in a module
(imports, constants, class attributes and bases, code under ``if``/``try`` at the top level) is
the module's own code; a change there changes the whole module, since any function may read what
it defines. What cannot be mapped to functions at all (a file that is not Python source, one that
does not parse, the benchmark itself) means everything must run: unknown means affected.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

from perflab import git

MODULE = "<module>"  # the unit of a module's own code (outside every function)


@dataclass
class Changes:
    """What changed between the revision and the working tree, by file (relative to the repository)."""

    functions: dict[str, set[str]] = field(default_factory=dict)  # file -> changed units (qualified names)
    modules: set[str] = field(default_factory=set)  # files whose own code changed: the whole module
    unmapped: list[str] = field(default_factory=list)  # why everything must run (empty: nothing of the kind)

    def count(self) -> str:
        """'3 changed functions' (and modules), as the skip reason says it."""
        functions = sum(len(units) for units in self.functions.values())
        said = f"{functions} changed function{'s' * (functions != 1)}"
        if self.modules:
            said += f" and {len(self.modules)} changed module{'s' * (len(self.modules) != 1)}"
        return said

    def names(self) -> list[str]:
        """Every change, as 'path:Class.method' or 'path' (a whole module)."""
        return sorted(self.modules) + sorted(
            f"{path}:{unit}" for path, units in self.functions.items() for unit in units
        )


def changes(root: Path, commit: str, benchmark: Path) -> Changes:
    """The changes between ``commit`` and the working tree of the repository at ``root``;
    ``benchmark``: the benchmark file (or an asv suite's directory), whose own change runs everything."""
    found = Changes()
    inside = benchmark.resolve().relative_to(root.resolve()).as_posix()
    for path in git.changed_files(root, commit):
        if "__pycache__" in path.split("/")[:-1]:
            continue  # bytecode Python writes for a source (importing the benchmark does): the source says what changed
        if path == inside or path.startswith(inside + "/"):
            found.unmapped.append(f"the benchmark ({path}) changed")
        elif not path.endswith(".py"):
            found.unmapped.append(f"{path} changed, and is not Python source: what it affects is unknown")
        else:
            current = root / path
            before = git.file_at(root, commit, path)
            after = current.read_text(encoding="utf-8", errors="replace") if current.is_file() else None
            try:
                old, new = unit_sources(before or ""), unit_sources(after or "")
            except SyntaxError as error:
                found.unmapped.append(f"{path} does not parse ({error.msg}, line {error.lineno})")
                continue
            if old.get(MODULE) != new.get(MODULE):
                found.modules.add(path)
            changed = {unit for unit in old.keys() | new.keys() if unit != MODULE and old.get(unit) != new.get(unit)}
            if changed:
                found.functions[path] = changed
    return found


def unit_sources(source: str) -> dict[str, str]:
    """Each unit of a module's source, as the dump of its syntax tree (positions left out, so that
    a function moved by lines added above it is unchanged); MODULE: the module's own code."""
    units: dict[str, str] = {}
    own: list[str] = []
    _collect(ast.parse(source).body, "", units, own)
    units[MODULE] = "\n".join(own)
    return units


def _collect(body: list[ast.stmt], prefix: str, units: dict[str, str], own: list[str]) -> None:
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            # A property's getter and setter share a name: both are that unit.
            # (An added or deleted function is a changed unit, not module code: code that now finds
            # another function by that name reaches it, on one side or the other.)
            units[prefix + node.name] = units.get(prefix + node.name, "") + ast.dump(node)
        elif isinstance(node, ast.ClassDef):
            # The class's own code (bases, decorators, attributes) is module code; its methods are units.
            header = ast.ClassDef(**{**node.__dict__, "body": []})
            own.append(ast.dump(header))
            _collect(node.body, f"{prefix}{node.name}.", units, own)
        else:
            own.append(ast.dump(node))


def unit_at(tree: ast.Module, line: int) -> str:
    """The unit holding the code that starts at ``line`` (a function's first decorator or ``def``
    line, as Python's code objects record it): the innermost function or method, else MODULE."""
    body, prefix = tree.body, ""
    while True:
        for node in body:
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            start = min([node.lineno] + [decorator.lineno for decorator in node.decorator_list])
            if start <= line <= (node.end_lineno or node.lineno):
                if isinstance(node, ast.ClassDef):
                    body, prefix = node.body, f"{prefix}{node.name}."
                    break
                return prefix + node.name  # functions nested in it are part of it
        else:
            return MODULE
