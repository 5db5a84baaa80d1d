"""Hostile input for the web view: a store that also holds runs with impossible times (written as
a store of an older perflab could hold them), every GET route filled with hostile ids and names,
and hostile mark bodies. tests/unit/test_web_hostile.py walks them in-process, and
tests/external/test_web_hostile_server.py over HTTP against a real `perflab serve`."""

from __future__ import annotations

import itertools
import json
import math
import re
import sqlite3
from pathlib import Path

from starlette.routing import Route

from perflab.results.store import Store
from support.store_results import synthetic_result
from support.web_store import build_store

IMPOSSIBLE = [math.inf, 0.0, -1e-5, 1e308, math.nan]
HOSTILE_IDS = ["99999999999999999999999", "9223372036854775808", "0", "-1", "1e3", "%00", "x" * 3000]
HOSTILE_NAMES = ["%00", "..%2F..%2Fetc%2Fpasswd", "%3Cscript%3E", "x" * 3000, "%F0%9F%92%A5", "%E2%80%AE"]
HOSTILE_BODIES = [  # (body, content type) for POST /api/marks
    ("[" * 1500 + "]" * 1500, "application/json"),  # a RecursionError in the JSON parser
    ('{"series": ' * 700 + "1" + "}" * 700, "application/json"),
    ("[1, 2]", "application/json"),
    ('{"series": null, "after": [], "status": {}, "note": 1e999}', "application/json"),
    ("\xff\xfe", "application/x-www-form-urlencoded"),
    ("series=%ZZ&after=%00", "application/x-www-form-urlencoded"),
    ("x" * 100_000, "application/json"),
    ("--b\r\n\r\n", "multipart/form-data; boundary=b"),
]


def hostile_store(path: Path) -> list[int]:
    """The web view's test store at ``path``, with one more run per impossible time, overwritten in
    SQLite; returns those runs' ids."""
    build_store(path)
    with Store.open(path) as store:
        bad_ids = [store.save(synthetic_result(benchmark="parse", seed=100 + i), uid=f"bad{i}") for i in range(5)]
    with sqlite3.connect(path) as raw:
        for run_id, value in zip(bad_ids, IMPOSSIBLE):
            if not math.isnan(value):  # SQLite keeps a NaN as NULL, which its NOT NULL refuses
                raw.execute(
                    "UPDATE measurements SET median = ?, low = ?, high = ? WHERE run_id = ?", [value] * 3 + [run_id]
                )
            data = json.loads(raw.execute("SELECT result FROM runs WHERE id = ?", [run_id]).fetchone()[0])
            for cell in data["cells"]:
                for run in cell["runs"]:
                    run["values"] = [value] * len(run["values"])
                cell["estimates"]["median"] = {"value": value, "low": value, "high": value}
            raw.execute("UPDATE runs SET result = ? WHERE id = ?", [json.dumps(data), run_id])
    return bad_ids


def hostile_paths(app, ids: list[str], names: list[str], stored: list[str]) -> list[str]:
    """Every GET route of ``app`` with each hostile value in each parameter (the others valid), and
    every pair of the ``stored`` runs' ids where a route takes two."""
    paths = []
    for route in app.routes:
        if not isinstance(route, Route) or "GET" not in (route.methods or ()):
            continue
        params = list(route.param_convertors)
        valid = {name: "1" if name in ("run_id", "a", "b") else "SMALL" for name in params}
        fillings = [{**valid, name: value} for name in params for value in (ids if valid[name] == "1" else names)]
        if {"a", "b"} <= set(params):
            fillings += [{**valid, "a": a, "b": b} for a, b in itertools.product(stored, repeat=2)]
        for filling in fillings or [{}]:
            paths.append(re.sub(r"\{(\w+)(:\w+)?\}", lambda match, given=filling: given[match[1]], route.path))
    return paths
