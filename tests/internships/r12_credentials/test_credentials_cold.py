"""Cold start (issue #21 rule, issue 34 routes): CredentialsFunction's handler registers its routes
without importing the rules, the Ed25519/PyJWT code or Pillow (each route imports what it needs), and
the certificate list (DocumentsFunction's sample route) does not pull them in either."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def _imported(code: str) -> set[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "layers" / "shared"),
                                                        str(ROOT / "functions" / "internships")]),
           "INTERNSHIPS_STAGE": "local"}
    out = subprocess.run([sys.executable, "-c", code + "; import sys; print('\\n'.join(sys.modules))"],
                         capture_output=True, text=True, env=env, cwd=ROOT, check=True)
    return set(out.stdout.split())


def test_handler_imports_no_rules_crypto_or_pillow():
    got = _imported("import internships.credentials.handler")
    assert "internships.credentials.handler" in got
    heavy = {"internships.credentials.service", "internships.credentials.badge", "lambdakit.ed25519", "jwt", "PIL"}
    assert not got & heavy, sorted(got & heavy)


def test_certificate_views_do_not_load_signing_or_pillow():
    got = _imported("from internships.documents import certificates; v = certificates.owner_view({"
                    "'certificate_id': 'CERT-26-ABCDEF', 'student_name': 'A', 'domain_name': 'D', 'duration': 4, "
                    "'issue_date': '2026-01-02', 'issued_at': '2026-01-02T03:04:05Z', 'enrollment_id': 'e'}); "
                    "assert v['linkedInUrl'].startswith('https://www.linkedin.com/profile/add?')")
    assert "internships.credentials.links" in got and "internships.credentials.service" not in got
    assert not got & {"lambdakit.ed25519", "jwt", "PIL", "internships.credentials.badge"}
