"""Issue #21 (cold first request): a function's handler imports what its sample (read) route needs;
modules only its other routes need are imported by those routes (``enrollments.service`` with the
payment gateway, coupons, invoices and the outbox; the outbox behind the milestone review; the
admin exports, settings, e-mail queue, certificates, invoices, resources, leads and roles; the
notification feed). Checked in a fresh interpreter, as a cold Lambda process imports the handler."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]

LAZY = {
    "internships.enrollments.handler": ("internships.enrollments.service", "internships.enrollments.gateway",
                                        "internships.coupons.service", "internships.mail.outbox"),
    "internships.learning.handler": ("internships.mail.outbox", "internships.mail.templates"),
    "internships.admin_review.handler": ("internships.mail.outbox", "internships.mail.templates",
                                         "internships.admin_review.service"),
    "internships.documents.handler": ("internships.documents.service", "internships.mail.outbox",
                                      "internships.enrollments.invoices", "internships.accounts.repository"),
    "internships.admin_insights.handler": ("internships.admin_insights.export", "internships.admin_insights.site_settings"),
    "internships.admin_engagement.handler": ("internships.mail.service", "internships.mail.templates"),
    "internships.admin_learning.handler": ("internships.admin_learning.certificates", "internships.admin_learning.enrollments",
                                           "internships.admin_learning.invoices", "internships.admin_learning.resources"),
    "internships.admin_people.handler": ("internships.admin_people.leads", "internships.admin_people.roles"),
    "internships.engagement.handler": ("internships.notifications.service",),
}


def _imported(module: str) -> set[str]:
    code = f"import importlib, sys; importlib.import_module({module!r}); print('\\n'.join(sys.modules))"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "layers" / "shared"),
                                                        str(ROOT / "functions" / "internships")]),
           "INTERNSHIPS_STAGE": "local"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, check=True)
    return set(out.stdout.split())


@pytest.mark.parametrize("handler", sorted(LAZY))
def test_the_handler_leaves_the_write_modules_to_their_routes(handler):
    got = _imported(handler)
    assert handler in got
    assert not got & set(LAZY[handler]), sorted(got & set(LAZY[handler]))


def test_my_enrollments_answers_from_the_views_module(gaps, intern_users, intern_seed):
    """The list route (no ``service`` import) answers as before: newest first, the student's own."""
    from tests.internships.journey.helpers import enroll_and_pay, make_domain

    c = gaps.internships
    admin = intern_users.staff("admin")
    s = intern_users.student()
    e1 = enroll_and_pay(c, s, make_domain(c, admin), intern_seed)
    e2 = enroll_and_pay(c, s, make_domain(c, admin), intern_seed)
    r = c.get("/api/enrollments/my-enrollments", headers=s.headers)
    assert r.status == 200, r.text
    got = r.json()["enrollments"]
    assert [e["id"] for e in got] == [e2["id"], e1["id"]]
    assert got[0]["status"] == "active" and got[0]["paymentStatus"] == "paid" and got[0]["domainName"]
    assert c.get("/api/enrollments/my-enrollments", headers=intern_users.student().headers).json() == {
        "success": True, "enrollments": []}
