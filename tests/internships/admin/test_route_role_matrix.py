"""Every /api/admin/* route in the template × every role: 401 for anonymous, 403 without
the route's declared requirement, anything else with it. The requirement is read by
introspecting the route middlewares (``.permission`` / ``.roles``), so the routes of
every slice are covered once merged; handler modules missing from this branch are skipped."""
from __future__ import annotations

import importlib
import re

ROLES = ["student", "reviewer", "project_admin", "admin", "super_admin"]
# outbound-network routes: the allowed case is not invoked (no network in tests);
# their 401/403 cases and declared requirement are still checked.
NO_ALLOWED_CALL = {("POST", "/api/admin/jobs/fetch-all"), ("POST", "/api/admin/jobs/fetch-rss"),
                   ("POST", "/api/admin/jobs/refresh")}


def _admin_routes():
    from local_runtime import stack

    svc = stack.load_all()["internships"]
    out = []
    for route in svc.routes if hasattr(svc, "routes") else []:
        if route.path.startswith("/api/admin"):
            out.append((route.method, route.path, svc.functions[route.function].handler))
    return out


def _requirement(handler_path: str, method: str, path: str):
    module_name = handler_path.rpartition(".")[0]
    try:
        mod = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.startswith("internships"):
            return "missing"
        raise
    app = mod.app
    for r in app._static_routes + app._dynamic_routes:
        if r.method == method and re.sub(r"<(\w+)>", r"{\1}", r.path) == path:
            for mw in r.middlewares:
                if getattr(mw, "permission", None):
                    return ("permission", mw.permission)
                if getattr(mw, "roles", None):
                    return ("roles", frozenset(mw.roles))
            return None
    return "unregistered"


def test_every_admin_route_by_every_role(internships_app, intern_users):
    from internships.auth.permissions import DEFAULT_ROLE_PERMISSIONS

    routes = _admin_routes()
    assert len(routes) >= 60, "template admin routes not found"
    users = {"student": intern_users.student()}
    for role in ROLES[1:]:
        users[role] = intern_users.staff(role)
    checked = 0
    for method, path, handler in routes:
        req = _requirement(handler, method, path)
        if req == "missing":
            continue
        assert req not in (None, "unregistered"), f"{method} {path}: no declared requirement ({req})"
        url = re.sub(r"\{(\w+)\}", "does-not-exist", path)
        if path.endswith("/roles/{role}"):
            url = path.replace("{role}", "reviewer")
        r = internships_app.internships.request(method, url, json={} if method in ("POST", "PUT", "PATCH") else None)
        assert r.status == 401, f"anonymous {method} {path} → {r.status}"
        for role in ROLES:
            kind, value = req
            allowed = (value in DEFAULT_ROLE_PERMISSIONS.get(role, frozenset())) if kind == "permission" \
                else role in value
            if allowed and (method, path) in NO_ALLOWED_CALL:
                continue
            r = internships_app.internships.request(
                method, url, headers=users[role].headers,
                json={"invalid": True} if method in ("POST", "PUT", "PATCH") else None)
            if allowed:
                assert r.status not in (401, 403), f"{role} {method} {path} → {r.status} {r.text[:200]}"
                assert r.status < 500, f"{role} {method} {path} → {r.status} {r.text[:200]}"
            else:
                assert r.status == 403, f"{role} {method} {path} → {r.status} {r.text[:200]}"
                assert "error" in r.json()
        checked += 1
    assert checked >= 60, checked


def test_admin_handlers_register_exactly_the_template_routes():
    import importlib

    from local_runtime import stack

    svc = stack.load_all()["internships"]
    for fn in ("AdminPeopleFunction", "AdminLearningFunction", "AdminInsightsFunction"):
        declared = {(r.method, r.path) for r in svc.routes if r.function == fn}
        mod = importlib.import_module(svc.functions[fn].handler.rpartition(".")[0])
        registered = {(r.method, re.sub(r"<(\w+)>", r"{\1}", r.path))
                      for r in mod.app._static_routes + mod.app._dynamic_routes}
        assert declared == registered, (fn, declared ^ registered)
