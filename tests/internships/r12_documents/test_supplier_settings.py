"""Issue 31 item 4: the supplier's legal name, address and GSTIN (CGST Rules, rule 46) come from
settings on every invoice: dev values under the local stage, template parameters when deployed,
and no invoice PDF at all (503) from a deployed stack that lacks them."""
from __future__ import annotations

import io

import pytest

INVOICE = {"id": "inv-1", "number": "INV/25-26/000007", "user_id": "u1", "issued_at": "2025-06-01T10:00:00Z",
           "student_name": "Ananya Sharma", "student_email": "a@example.com", "student_state": "Karnataka",
           "domain_name": "Web Development", "duration": 1, "amount": 1180}


def _text(pdf: bytes) -> str:
    from pypdf import PdfReader

    return PdfReader(io.BytesIO(pdf)).pages[0].extract_text()


@pytest.fixture
def reset(monkeypatch):
    from lambdakit import settings as ks

    ks.reset_settings()
    yield monkeypatch
    ks.reset_settings()


def test_local_stage_prints_the_dev_supplier(internships_app, reset):
    from internships.documents.service import render_invoice
    from internships.settings import DEV_SELLER, gstin_valid

    text = _text(render_invoice(dict(INVOICE)))
    assert gstin_valid(DEV_SELLER["seller_gstin"])
    for line in (DEV_SELLER["seller_name"], DEV_SELLER["seller_address"], f"GSTIN: {DEV_SELLER['seller_gstin']}",
                 "State: Karnataka", "CGST @ 9%", "SGST @ 9%"):
        assert line in text, line


def test_deployed_supplier_comes_from_the_template_parameters(internships_app, reset):
    from internships.documents.service import render_invoice

    reset.setenv("INTERNSHIPS_STAGE", "prod")
    reset.setenv("INTERNSHIPS_SELLER_NAME", "Acme Skills Private Limited")
    reset.setenv("INTERNSHIPS_SELLER_ADDRESS", "4 Park Street, Kolkata, West Bengal 700016")
    reset.setenv("INTERNSHIPS_SELLER_GSTIN", "19AAPFU0939F1ZS")
    reset.setenv("INTERNSHIPS_SELLER_STATE", "West Bengal")
    text = _text(render_invoice(dict(INVOICE)))
    for line in ("Acme Skills Private Limited", "4 Park Street, Kolkata, West Bengal 700016",
                 "GSTIN: 19AAPFU0939F1ZS", "State: West Bengal", "IGST @ 18%"):
        assert line in text, line


def test_deployed_without_a_supplier_issues_no_invoice(internships_app, reset):
    from internships.documents.service import render_invoice
    from lambdakit.errors import ApiError

    reset.setenv("INTERNSHIPS_STAGE", "prod")
    for var in ("NAME", "ADDRESS", "GSTIN"):
        reset.setenv(f"INTERNSHIPS_SELLER_{var}", "")
    with pytest.raises(ApiError) as err:
        render_invoice(dict(INVOICE))
    assert (err.value.status, err.value.code) == (503, "SUPPLIER_NOT_CONFIGURED")
    assert err.value.details == {"missing": ["name", "address", "gstin"]}


def test_a_malformed_gstin_is_refused(internships_app, reset):
    from internships.settings import settings

    reset.setenv("INTERNSHIPS_SELLER_GSTIN", "19AAPFU0939F1Z5")  # wrong check character
    with pytest.raises(ValueError):
        settings()


def test_the_template_passes_every_supplier_field():
    from pathlib import Path

    from local_runtime.stack import load_all

    svc = load_all(Path("template.yaml"))["internships"]
    text = (svc.dir / "template.yaml").read_text()
    for var, param in (("NAME", "SellerName"), ("ADDRESS", "SellerAddress"), ("GSTIN", "SellerGstin"),
                       ("STATE", "SellerState")):
        assert f"INTERNSHIPS_SELLER_{var}: !Ref '{param}'" in text
        assert f"Seller{param[6:]}: !Ref InternshipsSeller{param[6:]}" in Path("template.yaml").read_text()
