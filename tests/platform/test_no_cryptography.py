"""No function ships or needs ``cryptography`` (docs/platform.md, "Layers").

RS256 ID tokens (exams: Cognito; internships: Google sign-in) are verified in pure Python
(``lambdakit.rs256`` through ``lambdakit.pyjwt.rs256_decoder``; tests/platform/test_rs256.py
checks it against cryptography). cryptography is a dev dependency only: with it importable PyJWT
loads it and every asymmetric module at each cold start (~12 ms), and it needs a native layer.

* The templates: one layer, ``SharedLayer``, for every function; no ``layers/`` but ``shared``.
* The code: no product module imports cryptography or uses PyJWT's key classes that need it
  (``PyJWK*``, ``RSAAlgorithm``, ``has_crypto``), and every RS256 decode goes through ``rs256_decoder``.
* As run: exams.UsersFunction, with its layer's packages only (cryptography not importable),
  verifies its sample request's Cognito token (200) and refuses a forged one (401); internships'
  Google ID token check does the same in an interpreter where cryptography cannot be imported.
"""
from __future__ import annotations

import ast
import base64
import json
import subprocess
import sys
import time
from functools import cache
from pathlib import Path

import pytest

from local_runtime import invoke as inv
from local_runtime.stack import ROOT
from local_runtime.testing import services

sys.path.insert(0, str(ROOT / "bench"))

import lambda_sandbox as sb  # noqa: E402

SVCS = services()
FUNCTIONS = [(s.name, lid) for s in SVCS.values() for lid in sorted(s.functions)]
CODE_ROOTS = [ROOT / "layers" / "shared", *(ROOT / "functions" / n for n in sorted(SVCS))]
ASYMMETRIC = {"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES256K", "ES384", "ES512", "EdDSA"}
#: The modules naming an asymmetric algorithm: the algorithm, the decoder and its two callers.
RS256_MODULES = {"lambdakit.rs256", "lambdakit.pyjwt", "exams.identity.tokens", "internships.accounts.google"}
#: EdDSA (issue 34): the pure-Python Ed25519 algorithm and the Open Badges credentials that sign/verify with it.
EDDSA_MODULES = {"lambdakit.ed25519", "internships.credentials.service"}
NEEDS_CRYPTOGRAPHY = {"PyJWK", "PyJWKClient", "PyJWKSet", "RSAAlgorithm", "RSAPSSAlgorithm", "ECAlgorithm",
                      "OKPAlgorithm", "has_crypto"}


def _modules() -> dict[str, Path]:
    out = {}
    for root in CODE_ROOTS:
        for f in root.rglob("*.py"):
            if "botodata" in f.parts or "__pycache__" in f.parts:
                continue
            parts = f.relative_to(root).with_suffix("").parts
            out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = f
    return out


MODULES = _modules()


@cache
def _tree(mod: str) -> ast.Module:
    return ast.parse(MODULES[mod].read_text())


def _imports(mod: str) -> set[str]:
    """Every module ``mod`` imports, at its top or inside functions (``from a import b``: ``a``
    and ``a.b``)."""
    pkg = mod if MODULES[mod].name == "__init__.py" else mod.rpartition(".")[0]
    out: set[str] = set()
    for n in ast.walk(_tree(mod)):
        if isinstance(n, ast.Import):
            out |= {a.name for a in n.names}
        elif isinstance(n, ast.ImportFrom):
            base = ".".join(pkg.split(".")[: len(pkg.split(".")) - n.level + 1]) if n.level else ""
            m = ".".join(p for p in (base, n.module or "") if p)
            out |= {m} | {f"{m}.{a.name}" for a in n.names}
    return out


# ------------------------------------------------------------------ templates and files
@pytest.mark.parametrize("service,lid", FUNCTIONS, ids=[f"{s}.{f}" for s, f in FUNCTIONS])
def test_every_function_has_the_shared_layer_only(service, lid):
    """The shared layer is every function's only code layer; FontsLayer (internships, issue 33) holds
    fonts and no Python (test_the_fonts_layer_holds_no_python)."""
    assert [x for x in SVCS[service].functions[lid].layers if x != "FontsLayer"] == ["SharedLayer"]


@pytest.mark.parametrize("name", sorted(SVCS))
def test_no_layer_resource_but_the_shared_one(name):
    assert set(SVCS[name].resources_of("AWS::Serverless::LayerVersion")) - {"FontsLayer"} == {"SharedLayer"}
    assert "CryptoLayer" not in (ROOT / "functions" / name / "template.yaml").read_text()


def test_the_only_layer_folder_is_shared_and_ships_no_cryptography():
    assert sorted(p.name for p in (ROOT / "layers").iterdir()) == ["fonts", "shared"]
    names = {ln.split("==")[0].lower() for ln in (ROOT / "layers" / "shared" / "requirements.txt").read_text().splitlines()
             if "==" in ln}
    assert not names & {"cryptography", "cffi", "pycparser"}


def test_the_fonts_layer_holds_no_python():
    files = [p for p in (ROOT / "layers" / "fonts").rglob("*") if p.is_file()]
    assert files and not [p for p in files if p.suffix not in {".ttf", ".otf", ".txt", ".md"}]


# ------------------------------------------------------------------ the code
def test_no_product_module_imports_cryptography_or_its_pyjwt_classes():
    for mod in MODULES:
        bad = {m for m in _imports(mod) if m.split(".")[0] in ("cryptography", "cffi")}
        assert not bad, f"{mod} imports {bad}"
        used = {n.attr for n in ast.walk(_tree(mod)) if isinstance(n, ast.Attribute)} & NEEDS_CRYPTOGRAPHY
        assert not used, f"{mod} uses PyJWT's {used}, which need cryptography"


def test_rs256_is_decoded_by_the_rs256_decoder_only():
    """Which modules name an asymmetric algorithm is pinned (a new one is noticed), and every
    ``decode(..., algorithms=[... "RS256" ...])`` call is ``rs256_decoder.decode``."""
    naming = {m for m in MODULES if any(isinstance(n, ast.Constant) and n.value in ASYMMETRIC
                                        for n in ast.walk(_tree(m)))}
    assert naming == RS256_MODULES | EDDSA_MODULES
    calls = 0
    for mod in MODULES:
        for n in ast.walk(_tree(mod)):
            if not isinstance(n, ast.Call):
                continue
            algs = next((k.value for k in n.keywords if k.arg == "algorithms"), None)
            if algs is None or not any(isinstance(c, ast.Constant) and c.value in ASYMMETRIC for c in ast.walk(algs)):
                continue
            calls += 1
            f = n.func
            assert isinstance(f, ast.Attribute) and f.attr == "decode" and isinstance(f.value, ast.Name) \
                and f.value.id == "rs256_decoder", f"{mod}:{n.lineno} decodes RS256 without rs256_decoder"
    assert calls == 2  # exams.identity.tokens.verify, internships.accounts.google.verify_id_token


def test_campaigns_never_imports_jwt_or_cryptography():
    for mod in MODULES:
        if mod.startswith("campaigns."):
            bad = {m for m in _imports(mod) if m.split(".")[0] in ("jwt", "cryptography") or m == "lambdakit.pyjwt"}
            assert not bad, f"{mod} imports {bad}"


# ------------------------------------------------------------------ without cryptography
BLOCK = """import sys
class _NoCryptography:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("cryptography", "cffi", "_cffi_backend"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, _NoCryptography())
"""


def _run(code: str, env: dict[str, str] | None = None) -> dict:
    r = subprocess.run([sys.executable, "-c", BLOCK + code], capture_output=True, text=True, timeout=120,
                       env=env)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_fpdf2_makes_our_pdfs_without_cryptography():
    """fpdf2 imports cryptography optionally (encryption, signing: we use neither)."""
    code = """
import json
from fpdf import FPDF
pdf = FPDF()
pdf.add_page()
pdf.set_font("helvetica", size=12)
pdf.cell(text="Certificate")
out = bytes(pdf.output())
print(json.dumps({"pdf": out.startswith(b"%PDF"), "crypto": "cryptography" in sys.modules}))
"""
    assert _run(code) == {"pdf": True, "crypto": False}


def test_credentials_sign_and_verify_eddsa_without_cryptography():
    """internships' Open Badges credentials (issue 34): PyJWT signs and verifies EdDSA through
    ``lambdakit.ed25519`` where cryptography cannot be imported (PyJWT's own OKPAlgorithm needs it)."""
    code = """
import json
from lambdakit import ed25519
key = ed25519.SigningKey.from_seed(bytes(range(32)))
j = ed25519.eddsa_jwt()
tok = j.encode({"vc": 1}, key, algorithm="EdDSA")
ok = j.decode(tok, key.verifying.jwk(), algorithms=["EdDSA"]) == {"vc": 1}
bad = tok[:-2] + ("A" if tok[-2] != "A" else "B") + tok[-1]
try:
    j.decode(bad, key.verifying, algorithms=["EdDSA"])
    refused = False
except Exception:
    refused = True
print(json.dumps({"ok": ok, "refused": refused, "crypto": "cryptography" in sys.modules}))
"""
    env = {**__import__("os").environ, "PYTHONPATH": str(ROOT / "layers" / "shared")}
    assert _run(code, env) == {"ok": True, "refused": True, "crypto": False}


def test_google_id_token_verifies_without_cryptography():
    """internships' check of Google's ID token (``google.verify_id_token``: key set through
    ``oidc.signing_key``, signature, claims) where cryptography cannot be imported; the provider's
    discovery document and key set are served by stand-ins of ``oidc``'s fetches."""
    import os

    import jwt as pyjwt
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    jwk = {**json.loads(pyjwt.algorithms.RSAAlgorithm.to_jwk(key.public_key())), "kid": "g1", "alg": "RS256",
           "use": "sig"}
    issuer, client = "https://accounts.example.test", "client-1.apps.example"
    now = int(time.time())
    claims = {"iss": issuer, "aud": client, "sub": "1234", "email": "a@example.com", "email_verified": True,
              "iat": now, "exp": now + 600, "nonce": "n-1"}
    good = pyjwt.encode(claims, key, algorithm="RS256", headers={"kid": "g1"})
    forged = pyjwt.encode(claims, other, algorithm="RS256", headers={"kid": "g1"})
    code = f"""
import json
sys.path[:0] = [{str(ROOT / 'layers' / 'shared')!r}, {str(ROOT / 'functions' / 'internships')!r}]
from internships.accounts import google, oidc
jwks = {{"keys": [{json.dumps(jwk)}]}}
oidc.discovery = lambda: {{"issuer": {issuer!r}, "jwks_uri": "https://keys.example.test/jwks",
                          "authorization_endpoint": "-", "token_endpoint": "-"}}
oidc.fetch_json = lambda url, form=None: (200, jwks)
out = {{"sub": google.verify_id_token({good!r}, "n-1")["sub"]}}
try:
    google.verify_id_token({forged!r}, "n-1")
except google.SignInFailed as exc:
    out["forged"] = exc.reason
from lambdakit.pyjwt import jwt
out["has_crypto"] = jwt.algorithms.has_crypto
out["crypto"] = sorted(m for m in sys.modules if m.split(".")[0] in ("cryptography", "cffi"))
print(json.dumps(out))
"""
    env = {**os.environ, "INTERNSHIPS_GOOGLE_ISSUER": issuer, "INTERNSHIPS_GOOGLE_CLIENT_ID": client}
    assert _run(code, env) == {"sub": "1234", "forged": "invalid_id_token", "has_crypto": False, "crypto": []}


PROBE = """import importlib, importlib.util, os, sys


def lambda_handler(event, context):
    mod, _, attr = os.environ["PROBED_HANDLER"].rpartition(".")
    result = getattr(importlib.import_module(mod), attr)(event, context)
    return {"result": result, "crypto_importable": importlib.util.find_spec("cryptography") is not None,
            "crypto_imported": sorted(m for m in sys.modules if m.split(".")[0] in ("cryptography", "cffi")),
            "rs256_imported": "lambdakit.rs256" in sys.modules}
"""


def test_an_exams_function_verifies_cognito_tokens_as_deployed(tmp_path):
    """exams.UsersFunction from the sources with exactly its layer's packages (as
    ``bench_coldrequest`` runs it: ``lambda_sandbox``), against the emulator: its sample request
    with the seeded super admin's Cognito ID token answers 200, the same token with its signature
    altered 401 ``TOKEN_VERIFICATION_FAILED``; cryptography is neither importable nor imported."""
    for svc in SVCS.values():
        inv.ensure_paths(code_dirs=[svc.dir])
    (tmp_path / "probe").mkdir()
    (tmp_path / "probe" / "crypto_probe.py").write_text(PROBE)
    fn = SVCS["exams"].functions["UsersFunction"]
    with sb.Emulator(tmp_path, ("exams",), seed=True) as emu:
        layers = sb.layers_from_venv(tmp_path)
        env = {**sb.base_env(emu.endpoint, tracing=False), **emu.function_env("exams", "UsersFunction"),
               "PROBED_HANDLER": fn.handler}
        event = sb.event_for("exams", "UsersFunction", emu.state["ids"])
        event["headers"].update(emu.state["auth"]["exams"])
        paths = [*sb.function_paths(fn, layers), str(sb.runtime_dir(tmp_path)), str(tmp_path / "probe")]

        def call(ev: dict) -> dict:
            r = sb.invoke(paths, "crypto_probe.lambda_handler", ev, env, name="exams-UsersFunction")
            assert r["ok"], r.get("traceback") or r.get("stderr")
            return r["result"]

        out = call(event)
        assert out["result"]["statusCode"] == 200, out["result"]
        assert not out["crypto_importable"] and out["crypto_imported"] == [] and out["rs256_imported"]
        token = event["headers"]["authorization"].split()[1]
        head, payload, sig = token.split(".")
        raw = bytearray(base64.urlsafe_b64decode(sig + "=="))
        raw[-1] ^= 1
        forged = ".".join([head, payload, base64.urlsafe_b64encode(bytes(raw)).decode().rstrip("=")])
        out = call({**event, "headers": {**event["headers"], "authorization": f"Bearer {forged}"}})
        assert out["result"]["statusCode"] == 401, out["result"]
        assert json.loads(out["result"]["body"])["error"] == "TOKEN_VERIFICATION_FAILED"
