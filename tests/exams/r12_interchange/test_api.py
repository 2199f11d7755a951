"""Issue 34 through the API: import in each format (all or nothing, every problem by line and
item, tenant and folder rules), export of a folder and of a test, and the round trip."""
from pathlib import Path

import pytest

from tests.exams.delivery.delivery_helpers import Tenant

from .bank import RAW, comparable

FIX = Path(__file__).parent / "fixtures"
RAW_TYPE = {"moodle_xml": "application/xml", "gift": "text/plain", "aiken": "text/plain", "qti3": "application/zip"}


@pytest.fixture
def tenant(exams_app, exam_users) -> Tenant:
    client = exam_users.client(name="Acme", plan_id="enterprise")
    return Tenant(exams_app, exam_users, client, exam_users.client_admin(client["id"]), [])


def _multipart(data: bytes, filename: str, **fields) -> tuple[bytes, str]:
    b = "XbOuNdArY"
    parts = [f'--{b}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode() for k, v in fields.items()]
    parts.append(f'--{b}\r\nContent-Disposition: form-data; name="file"; filename="{filename}"\r\n'
                 f'Content-Type: application/octet-stream\r\n\r\n'.encode() + data + f"\r\n--{b}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={b}"


def _import(t: Tenant, fmt: str, data: bytes, folder: str, *, multipart: bool = True):
    if multipart:
        body, ctype = _multipart(data, f"bank.{fmt}", format=fmt, folder_id=folder)
        return t.app.exams.post("/api/questions/import", body=body, headers={**t.ca.headers, "content-type": ctype})
    return t.app.exams.post("/api/questions/import", body=data, query={"format": fmt, "folder_id": folder},
                            headers={**t.ca.headers, "content-type": RAW_TYPE[fmt]})


def _folder(t: Tenant, folder: str) -> list[dict]:
    r = t.app.exams.get("/api/questions", query={"folder_id": folder, "limit": 200}, headers=t.ca.headers)
    assert r.status == 200, r.text
    return r.json()["data"]


@pytest.mark.parametrize(("fmt", "name", "count"), [("moodle_xml", "moodle_quiz.xml", 5), ("gift", "bank.gift", 8),
                                                     ("aiken", "bank.aiken", 2)])
def test_fixture_imports_into_the_folder(tenant, fmt, name, count):
    r = _import(tenant, fmt, (FIX / name).read_bytes(), f"f-{fmt}", multipart=fmt != "aiken")
    assert r.status == 201, r.text
    data = r.json()["data"]
    assert data["imported"] == count == data["total_rows"] and data["import_batch_id"]
    got = _folder(tenant, f"f-{fmt}")
    assert len(got) == count and {q["import_batch_id"] for q in got} == {data["import_batch_id"]}
    if fmt == "moodle_xml":
        assert data["warnings"] == [{"line": 15, "item": "Powerhouse",
                                     "warning": "embedded files are not stored (their references stay in the "
                                                "text): cell.png"}]


def test_qti_package_imports_as_a_raw_zip_body(tenant):
    from .test_qti import package

    r = _import(tenant, "qti3", package(), "f-qti", multipart=False)
    assert r.status == 201, r.text
    assert r.json()["data"]["imported"] == 4 and len(r.json()["data"]["warnings"]) == 1
    assert sorted(q["question_type"] for q in _folder(tenant, "f-qti")) == [
        "fill_blank", "mcq", "multi_select", "subjective"]
    evil = package(**{"../../escape.xml": b"<x/>"})
    r = _import(tenant, "qti3", evil, "f-evil", multipart=False)
    assert r.status == 400 and "leaves the package" in r.json()["message"]


def test_unmappable_items_import_nothing_and_are_all_reported(tenant):
    r = _import(tenant, "moodle_xml", (FIX / "moodle_unmappable.xml").read_bytes(), "bad")
    assert r.status == 400 and r.json()["error"] == "IMPORT_VALIDATION_ERROR", r.text
    det = r.json()["details"]
    assert [d["item"] for d in det] == ["Capitals", "Pi", "Partial", "Five options", "Embedded"]
    assert all(isinstance(d["line"], int) and d["error"] for d in det)
    assert _folder(tenant, "bad") == []
    r = _import(tenant, "gift", b"{", "bad")
    assert r.status == 400 and r.json()["details"][0]["error"].startswith("unterminated")
    r = _import(tenant, "moodle_xml", b"<quiz><question", "bad")
    assert r.status == 400 and "well-formed" in r.json()["message"]
    r = _import(tenant, "pdf", b"x", "bad")
    assert r.status == 400 and r.json()["error"] == "VALIDATION_ERROR"
    assert _folder(tenant, "bad") == []


def test_import_limit_is_the_csv_limit(tenant, monkeypatch):
    from lambdakit.settings import reset_settings

    monkeypatch.setenv("EXAMS_CSV_MAX_ROWS", "2")
    reset_settings()
    r = _import(tenant, "aiken", b"Q1\nA. a\nB. b\nANSWER: A\n\nQ2\nA. a\nB. b\nANSWER: A\n\nQ3\nA. a\nB. b\nANSWER: B\n",
                "lim")
    assert r.status == 400 and r.json()["details"][0]["line"] == 11
    assert _folder(tenant, "lim") == []
    monkeypatch.delenv("EXAMS_CSV_MAX_ROWS")
    reset_settings()


@pytest.mark.parametrize("fmt", ["moodle_xml", "gift", "qti3"])
def test_folder_export_then_import_is_lossless(tenant, fmt):
    for q in RAW:
        tenant.question(**q, folder_id=f"src-{fmt}")
    r = tenant.app.exams.get("/api/questions/export", query={"format": fmt, "folder_id": f"src-{fmt}"},
                             headers=tenant.ca.headers)
    assert r.status == 200, r.text
    assert r.headers["content-disposition"].startswith('attachment; filename="src-')
    r = _import(tenant, fmt, r.body, f"dst-{fmt}")
    assert r.status == 201, r.text
    src, dst = _folder(tenant, f"src-{fmt}"), _folder(tenant, f"dst-{fmt}")
    key = lambda q: q["question_text"]  # noqa: E731 - one import shares a created_at: order by text
    assert [comparable(q) for q in sorted(dst, key=key)] == [comparable(q) for q in sorted(src, key=key)]
    assert len(dst) == len(RAW)


def test_test_export_in_the_tests_order_and_tenant_rules(tenant):
    qs = [tenant.question(**q, folder_id="t") for q in RAW[:3]]
    t = tenant.test(question_ids=[qs[2]["id"], qs[0]["id"]], publish=False)
    r = tenant.app.exams.get(f"/api/tests/{t['id']}/export", query={"format": "gift"}, headers=tenant.ca.headers)
    assert r.status == 200, r.text
    text = r.text
    assert text.index("Which are prime?") < text.index("powerhouse") and "Tricky" not in text
    r = tenant.app.exams.get(f"/api/tests/{t['id']}/export", query={"format": "aiken"}, headers=tenant.ca.headers)
    assert r.status == 422 and r.json()["error"] == "EXPORT_NOT_REPRESENTABLE"
    assert r.json()["details"] == [{"question_id": qs[2]["id"], "error": "Aiken carries only single-answer "
                                                                         "multiple choice, not multi_select"}]
    r = tenant.app.exams.get(f"/api/tests/{t['id']}/export", headers=tenant.ca.headers)
    assert r.status == 400
    other = tenant.users.client(name="Other", plan_id="growth")
    oca = tenant.users.client_admin(other["id"])
    r = tenant.app.exams.get(f"/api/tests/{t['id']}/export", query={"format": "gift"}, headers=oca.headers)
    assert r.status == 403 and r.json()["error"] == "BOLA_VIOLATION"
    r = tenant.app.exams.get("/api/questions/export", query={"format": "gift", "folder_id": "t"}, headers=oca.headers)
    assert r.status == 200 and "powerhouse" not in r.text  # the other tenant's own (empty) folder
    r = tenant.app.exams.get("/api/questions/export", query={"format": "gift", "folder_id": "t",
                                                             "client_id": tenant.cid}, headers=oca.headers)
    assert r.status == 403, r.text  # naming another tenant is refused, as on GET /api/questions
    sa = tenant.users.super_admin()
    r = tenant.app.exams.get("/api/questions/export", query={"format": "gift", "folder_id": "t"}, headers=sa.headers)
    assert r.status == 400 and r.json()["error"] == "VALIDATION_ERROR"  # a super admin names the tenant
    r = tenant.app.exams.get("/api/questions/export", query={"format": "gift", "folder_id": "t",
                                                             "client_id": tenant.cid}, headers=sa.headers)
    assert r.status == 200 and "powerhouse" in r.text
    student = tenant.users.student(tenant.cid)
    r = tenant.app.exams.get("/api/questions/export", query={"format": "gift", "folder_id": "t"},
                             headers=student.headers)
    assert r.status == 403
