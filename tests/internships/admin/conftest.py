"""ADMIN slice fixtures: records in the documented data model (docs/internships-data-model.md)
for the parts other slices' routes would create (domains, enrollments, milestones, certificates,
invoices, leads). Written through the real table; only the setup bypasses those routes."""
from __future__ import annotations

import itertools

import pytest

_n = itertools.count(1)


class Seed:
    def __init__(self) -> None:
        from internships.settings import settings
        from lambdakit.ddb import Table

        self.t = Table(settings().table_name)

    def counter(self, name: str, by: int = 1) -> None:
        self.t.update("COUNTERS", name, add={"count": by})

    def domain(self, name="Web Development", milestones=3, **kw) -> dict:
        i = next(_n)
        d = {"id": f"dom{i}", "name": name, "slug": f"{name.lower().replace(' ', '-')}-{i}", "is_active": True,
             "prices": {"1": 1000, "2": 1800, "3": 2500}, "enrollment_count": 0, "created_at": "2025-01-01T00:00:00.000Z",
             "milestones": [{"title": f"Step {k}", "description": f"Do step {k}"} for k in range(1, milestones + 1)],
             **kw}
        self.t.put({"pk": f"DOMAIN#{d['id']}", "sk": "DOMAIN", "gsi1pk": "DOMAINS", "gsi1sk": d["slug"], **d})
        self.counter("domains")
        return d

    def enrollment(self, user, domain, status="active", created_at=None, **kw) -> dict:
        i = next(_n)
        created = created_at or f"2025-02-{(i % 27) + 1:02d}T10:00:00.{i % 1000:03d}Z"
        e = {"id": f"enr{i:06d}", "user_id": user.id, "student_name": user.name, "student_email": user.email,
             "domain_id": domain["id"], "domain_name": domain["name"], "duration": 1, "price": 1000, "amount": 1000,
             "discount": 0, "status": status, "payment_status": "paid", "created_at": created,
             "activated_at": created, "updated_at": created, "milestone_count": 0, **kw}
        self.t.put(self.enrollment_item(e))
        if status in ("pending", "active"):
            self.t.put({"pk": f"USER#{user.id}", "sk": f"OPEN#{domain['id']}", "enrollment_id": e["id"]})
        for name in ("enrollments", f"enrollments#status#{status}", f"enrollments#domain#{domain['id']}",
                     f"enrollments#domain#{domain['id']}#status#{status}"):
            self.counter(name)
        return e

    @staticmethod
    def enrollment_item(e: dict) -> dict:
        key = f"{e['created_at']}#{e['id']}"
        return {"pk": f"ENROLL#{e['id']}", "sk": "ENROLL", "gsi1pk": f"USER#{e['user_id']}#ENROLLS", "gsi1sk": key,
                "gsi2pk": "ENROLLS", "gsi2sk": key, "gsi3pk": f"ENROLLS#{e['status']}", "gsi3sk": key, **e}

    def milestone(self, e: dict, order: int, status="pending") -> dict:
        now = "2025-03-01T00:00:00.000Z"
        m = {"id": f"{e['id']}-{order:02d}", "enrollment_id": e["id"], "user_id": e["user_id"],
             "domain_id": e["domain_id"], "order": order, "title": f"Step {order}", "status": status,
             "created_at": now, "updated_at": now}
        from internships.learning.plan import index_attrs

        self.t.put({"pk": f"ENROLL#{e['id']}", "sk": f"MS#{order:02d}", **index_attrs(m, status, now),
                    "gsi2pk": f"USER#{e['user_id']}#MILESTONES", "gsi2sk": f"{e['id']}#{order:02d}", **m})
        self.counter(f"milestones#{status}")
        return m

    def certificate(self, e: dict, **kw) -> dict:
        i = next(_n)
        c = {"certificate_id": f"CERT-25-A{i:05d}", "enrollment_id": e["id"], "user_id": e["user_id"],
             "student_name": e["student_name"], "student_email": e["student_email"], "domain_id": e["domain_id"],
             "domain_name": e["domain_name"], "duration": 1, "issue_date": "2025-04-01",
             "issued_at": f"2025-04-01T00:00:{i % 60:02d}.000Z", "expiry_at": None, "revoked": False, **kw}
        self.t.put({"pk": f"CERT#{c['certificate_id']}", "sk": "CERT", "gsi1pk": f"USER#{e['user_id']}#CERTS",
                    "gsi1sk": c["issued_at"], "gsi2pk": "CERTS", "gsi2sk": f"{c['issued_at']}#{c['certificate_id']}",
                    **c})
        self.counter("certificates")
        return c

    def invoice(self, e: dict, pdf: bytes | None = b"%PDF-1.4 test") -> dict:
        i = next(_n)
        inv = {"id": f"inv{i}", "number": f"INV/25-26/{i:06d}", "enrollment_id": e["id"], "user_id": e["user_id"],
               "student_name": e["student_name"], "student_email": e["student_email"],
               "domain_name": e["domain_name"], "amount": 1000, "issued_at": f"2025-04-02T00:00:{i % 60:02d}.000Z"}
        if pdf is not None:
            from internships.settings import settings
            from lambdakit import aws

            inv["pdf_key"] = f"invoices/{inv['id']}.pdf"
            aws.client("s3").put_object(Bucket=settings().files_bucket, Key=inv["pdf_key"], Body=pdf)
        self.t.put({"pk": f"INVOICE#{inv['id']}", "sk": "INVOICE", "gsi1pk": f"USER#{e['user_id']}#INVOICES",
                    "gsi1sk": f"{inv['issued_at']}#{inv['id']}", "gsi2pk": "INVOICES",
                    "gsi2sk": f"{inv['issued_at']}#{inv['id']}", **inv})
        self.counter("invoices")
        return inv

    def lead(self, name="Asha", status="new", source="website", domain="Web Development", email=None,
             created_at=None) -> dict:
        i = next(_n)
        created = created_at or f"2025-05-{(i % 27) + 1:02d}T09:00:00.000Z"
        lead = {"id": f"lead{i:05d}", "name": name, "domain": domain, "duration": "1", "phone": "9876543210",
                "source": source, "status": status, "created_at": created, "updated_at": created}
        if email:
            lead["email"] = email
        key = f"{created}#{lead['id']}"
        self.t.transact([
            {"put": {"pk": f"LEAD#{lead['id']}", "sk": "LEAD", "type": "lead", **lead, "gsi1pk": "LEADS",
                     "gsi1sk": key, "gsi2pk": f"LEADSTATUS#{status}", "gsi2sk": key,
                     "gsi3pk": f"LEADSOURCE#{source}", "gsi3sk": key}},
            {"update": ("COUNTER#LEADS", "TOTAL"), "add": {"all": 1, f"status:{status}": 1, f"source:{source}": 1}}])
        return lead


@pytest.fixture
def seed(internships_app) -> Seed:
    return Seed()


@pytest.fixture
def api(internships_app):
    return internships_app.internships


@pytest.fixture
def sa(intern_users):
    return intern_users.staff("super_admin")
