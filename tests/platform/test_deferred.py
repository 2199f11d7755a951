"""``lambdakit.deferred``: modules imported eagerly by a library run at first use (issue #21).

Each case runs in a fresh interpreter: deferral is about what a cold process imports."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = r"""
import json, sys, importlib.util
sys.path[:0] = [{layer!r}, {exams!r}]
lazy = lambda name: type(sys.modules.get(name)) is importlib.util._LazyModule
from lambdakit.pyjwt import jwt
out = {{"x509_loaded_at_import": "cryptography.x509" in sys.modules and not lazy("cryptography.x509"),
        "x509_deferred": lazy("cryptography.x509")}}
from cryptography.hazmat.primitives.asymmetric import rsa
k = rsa.generate_private_key(public_exponent=65537, key_size=2048)
jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(k.public_key()))
tok = jwt.encode({{"sub": "u"}}, k, algorithm="RS256", headers={{"kid": "a"}})
claims = jwt.decode(tok, jwt.PyJWK(jwk, algorithm="RS256").key, algorithms=["RS256"])
out["rs256_ok"] = claims == {{"sub": "u"}}
out["x509_still_deferred_after_rs256"] = lazy("cryptography.x509")
other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
try:
    jwt.decode(jwt.encode({{"sub": "u"}}, other, algorithm="RS256"), k.public_key(), algorithms=["RS256"])
except jwt.PyJWTError as exc:
    out["forged"] = type(exc).__name__
hs = jwt.encode({{"sub": "h"}}, "s" * 32, algorithm="HS256")  # PyJWT's HMAC key check reads x509
out["hs256_ok"] = jwt.decode(hs, "s" * 32, algorithms=["HS256"]) == {{"sub": "h"}}
out["x509_loaded_after_hs256"] = not lazy("cryptography.x509") and hasattr(sys.modules["cryptography.x509"], "load_der_x509_certificate")
from exams.reports import workbook
data = workbook.build({report!s})
out["xlsx_magic"] = data[:2].decode()
out["pil_deferred"] = lazy("PIL.Image")
print(json.dumps(out))
"""

#: one question, so the workbook's charts are written too
REPORT = {
    "candidate": "C", "test_name": "T", "status": "submitted", "score": 1, "total_marks": 1, "percentage": 100,
    "result": "pass", "time_taken": 10, "started_at": "s", "submitted_at": "e", "risk_score": 0,
    "sections": [{"title": "S", "questions": 1, "correct": 1, "marks_awarded": 1, "max_marks": 1}],
    "questions": [{"text": "Q", "type": "mcq", "options": {"A": "a"}, "chosen": "A", "correct": "A",
                   "status": "correct", "marks_awarded": 1, "max_marks": 1, "time_spent": 5,
                   "correct_ratio": 1, "facility_index": 1, "difficulty": "easy"}],
    "difficulty_analysis": {"easy": {"questions": 1, "correct": 1}},
}


def _run(env_extra: dict[str, str]) -> dict:
    code = PROBE.format(layer=str(ROOT / "layers" / "shared"), exams=str(ROOT / "functions" / "exams"),
                        report=repr(REPORT))
    env = {k: v for k, v in os.environ.items() if k not in ("LAMBDA_TASK_ROOT", "AWS_SAM_LOCAL")}
    env.update(env_extra)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_in_lambda_x509_and_pillow_wait_for_first_use():
    out = _run({"LAMBDA_TASK_ROOT": "/var/task"})
    assert out["x509_deferred"] and not out["x509_loaded_at_import"]
    assert out["rs256_ok"] and out["x509_still_deferred_after_rs256"]
    assert out["forged"] == "InvalidSignatureError"
    # touching the deferred module runs it: HS256's asymmetric-key check works as without deferral
    assert out["hs256_ok"] and out["x509_loaded_after_hs256"]
    assert out["xlsx_magic"] == "PK" and out["pil_deferred"]


def test_outside_lambda_nothing_is_deferred():
    out = _run({})
    assert not out["x509_deferred"] and out["x509_loaded_at_import"]
    assert out["rs256_ok"] and out["hs256_ok"] and out["xlsx_magic"] == "PK" and not out["pil_deferred"]
    out = _run({"LAMBDA_TASK_ROOT": "/var/task", "AWS_SAM_LOCAL": "true"})  # sam local: threads
    assert not out["x509_deferred"]
