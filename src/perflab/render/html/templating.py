"""The Jinja2 environment of perflab's HTML files (the comparison report, the check and bisect pages,
the flame graph viewer), as the web view renders its pages: templates in templates/, every ``{{ }}``
autoescaped, data for scripts through ``script_json``."""

from __future__ import annotations

import json
from collections.abc import Callable
from importlib import resources
from typing import Any

import jinja2
from markupsafe import Markup

from perflab import __version__


def script_json(data: Any) -> str:
    """JSON that cannot end its <script> element or open a comment, whatever strings it holds."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return (
        text.replace("&", "\\u0026")
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def asset(name: str) -> Markup:
    """A vendored style sheet or script of assets/, inlined so that the file works offline."""
    return Markup((resources.files("perflab.render.html") / "assets" / name).read_text(encoding="utf-8"))


def environment(package: str) -> jinja2.Environment:
    """The environment of a package's templates/ (this one's, the web view's): autoescaped, an
    undefined name an error rather than an empty string, ``script_json`` for data in scripts."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader(package, "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,  # a page ends with a newline, as a text file does
    )
    env.filters["script_json"] = lambda data: Markup(script_json(data))
    env.globals["version"] = __version__
    return env


ENVIRONMENT = environment("perflab.render.html")
ENVIRONMENT.globals["asset"] = asset


def render(template: str, **context: Any) -> str:
    return ENVIRONMENT.get_template(template).render(**context)


def macro(template: str, name: str) -> Callable[..., Markup]:
    """A macro of a template, for the pieces other pages embed (a report section in the web view)."""
    return getattr(ENVIRONMENT.get_template(template).module, name)
