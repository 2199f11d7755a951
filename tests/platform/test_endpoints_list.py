"""docs/endpoints.txt lists exactly the routes the templates serve (issue 31 item 6).

The README points newcomers at this file instead of the specs' list outside the repository; it is
generated (``python tools/endpoints.py``), so it cannot drift: every template route is on it, marked
``(added)`` unless the product specs document it, and every route the specs' list names (when that
list sits beside the repository, as in CI) is served and unmarked.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from local_runtime.stack import load_all
from tools import endpoints

ROOT = Path(__file__).resolve().parents[2]


def test_the_list_is_what_tools_endpoints_writes():
    assert endpoints.PATH.read_text() == endpoints.render(), (
        "docs/endpoints.txt is stale: run `make openapi` (or python tools/endpoints.py) and commit it")


def test_the_list_equals_the_template_routes():
    listed = set(endpoints.parse(endpoints.PATH.read_text()))
    served = {(name, r.method, r.path) for name, svc in load_all().items() for r in svc.canonical_routes}
    assert listed == served


def test_every_spec_route_is_served_and_unmarked():
    spec_list = next((p for p in (ROOT.parent / "shared" / "specs" / "endpoints.txt",
                                  ROOT.parents[1] / "shared" / "specs" / "endpoints.txt") if p.exists()), None)
    if spec_list is None:
        pytest.skip("the specs' endpoints.txt is not beside this checkout")
    spec = set(endpoints.parse(spec_list.read_text()))
    assert spec and spec == endpoints.spec_routes()


def test_the_readme_points_inside_the_repository():
    readme = (ROOT / "README.md").read_text()
    assert "../shared" not in readme and "docs/endpoints.txt" in readme
