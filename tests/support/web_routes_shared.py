"""What the tiers of test_web_routes.py share (split by tier from one file)."""

from __future__ import annotations

import warnings

import pytest

pytest.importorskip("starlette", reason="the web view needs perflab[web]")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # Starlette asks for httpx2 over httpx; both drive the app the same way
    from starlette.testclient import TestClient


from perflab.web.app import ServeSettings, create_app
from support.web_store import (
    build_store,
)


@pytest.fixture(scope="module")
def store_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("web") / "perflab.db"
    ids = build_store(path)
    return path, ids


@pytest.fixture
def client(store_path):
    return TestClient(create_app(ServeSettings(store_path[0])))
