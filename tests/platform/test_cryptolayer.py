"""CryptoLayer (docs/platform.md, "Layers"): cryptography ships only to the functions that verify
RS256 tokens, and a function that needs it cannot silently lose it.

* Which modules verify RS256 is read from the code (string literals of PyJWT's asymmetric
  algorithms, ``PyJWK*``, ``import cryptography``) and pinned here (``RS256_MODULES``), so a new one
  is noticed. A function needs the layer when its handler's import closure (every import, also
  the lazy ones inside functions) reaches one of them, except exams' token verifier, which only
  the HTTP middleware runs, and only for routes outside ``exams.http.PUBLIC_ROUTES``.
* Each function has ``CryptoLayer`` exactly when it needs it (a function without the need pays
  ~25 ms more per cold start with it: PyJWT imports cryptography whenever it is importable).
* Without cryptography, the RS256 paths answer the service's error, with an error log line:
  exams 503 ``SERVICE_UNAVAILABLE`` (tests/platform/test_artifact.py runs it as built), the
  internships Google callback its ``/login?error=provider_unavailable`` redirect.
* What the functions without the layer use still works without cryptography (fpdf2's PDFs).
"""
from __future__ import annotations

import ast
import logging
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from local_runtime import invoke as inv
from local_runtime.stack import ROOT
from local_runtime.testing import services

SVCS = services()
FUNCTIONS = [(s.name, lid) for s in SVCS.values() for lid in sorted(s.functions)]
CODE_ROOTS = [ROOT / "layers" / "shared", *(ROOT / "functions" / n for n in sorted(SVCS))]

#: The modules that verify RS256 (need cryptography); test_rs256_modules_are_the_known_ones keeps it honest.
RS256_MODULES = {"exams.identity.tokens", "exams.identity.jwks", "internships.accounts.google",
                 "internships.accounts.oidc"}
#: exams' token verifier: run by ``exams.http.service_middleware`` only, for non-public routes.
EXAMS_VERIFIER = {"exams.identity.tokens", "exams.identity.jwks"}
ASYMMETRIC = {"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES256K", "ES384", "ES512", "EdDSA"}


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


def closure(mod: str) -> set[str]:
    """The modules of our code (layers/shared, functions/*) that importing ``mod`` may run."""
    seen: set[str] = set()
    todo = [mod]
    while todo:
        m = todo.pop()
        if m in seen or m not in MODULES:
            continue
        seen.add(m)
        parts = m.split(".")
        todo += [".".join(parts[:i]) for i in range(1, len(parts))]  # its packages' __init__
        todo += _imports(m)
    return seen


def _verifies_rs256(mod: str) -> bool:
    for n in ast.walk(_tree(mod)):
        if isinstance(n, ast.Constant) and n.value in ASYMMETRIC:
            return True
        if isinstance(n, ast.Attribute) and n.attr in ("PyJWK", "PyJWKClient", "PyJWKSet"):
            return True
        if isinstance(n, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in n.names] if isinstance(n, ast.Import) else [n.module or ""]
            if any(x == "cryptography" or x.startswith("cryptography.") for x in names):
                return True
    return False


def needs_crypto(service: str, lid: str) -> bool:
    fn = SVCS[service].functions[lid]
    reached = closure(fn.handler.rpartition(".")[0]) & RS256_MODULES
    if reached and reached <= EXAMS_VERIFIER:
        from exams.http import PUBLIC_ROUTES  # noqa: PLC0415

        return any(r.function == lid and r.route_key not in PUBLIC_ROUTES for r in SVCS[service].routes)
    return bool(reached)


@pytest.fixture(autouse=True, scope="module")
def _paths():
    for svc in SVCS.values():
        inv.ensure_paths(code_dirs=[svc.dir])


def test_rs256_modules_are_the_known_ones():
    assert {m for m in MODULES if _verifies_rs256(m)} == RS256_MODULES


def test_exams_verifies_tokens_in_its_http_middleware_only():
    """The premise of the exams exemption: ``verify`` (tokens) is called by ``authn`` only, and
    ``authn.verify_token`` by ``exams.http`` only (its service middleware)."""
    callers: dict[str, set[str]] = {"verify": set(), "verify_token": set()}
    for mod in MODULES:
        if not mod.startswith("exams."):
            continue
        for n in ast.walk(_tree(mod)):
            if isinstance(n, ast.Call):
                name = n.func.id if isinstance(n.func, ast.Name) else getattr(n.func, "attr", "")
                if name in callers:
                    callers[name].add(mod)
    assert callers == {"verify": {"exams.identity.authn"}, "verify_token": {"exams.http"}}


@pytest.mark.parametrize("service,lid", FUNCTIONS, ids=[f"{s}.{f}" for s, f in FUNCTIONS])
def test_crypto_layer_exactly_where_rs256_is_verified(service, lid):
    fn = SVCS[service].functions[lid]
    assert fn.layers[:1] == ["SharedLayer"]
    if needs_crypto(service, lid):
        assert "CryptoLayer" in fn.layers, f"{service}.{lid} verifies RS256 tokens: it needs CryptoLayer"
    else:
        assert "CryptoLayer" not in fn.layers, f"{service}.{lid} never verifies RS256: CryptoLayer only slows it"


def test_who_gets_the_crypto_layer():
    """The outcome, spelled out (docs/platform.md lists the same)."""
    got = {(s, f) for s, f in FUNCTIONS if "CryptoLayer" in SVCS[s].functions[f].layers}
    exams_http = {f for f, fn in SVCS["exams"].functions.items() if any(e["Type"] == "HttpApi" for e in fn.events.values())}
    assert got == {("exams", f) for f in exams_http - {"HealthFunction"}} | {("internships", "GoogleAuthFunction")}


def test_password_sign_in_never_reaches_the_rs256_modules():
    """internships' Google sign-in routes are GoogleAuthFunction's: AuthFunction (password sign-in,
    sessions) imports neither ``google`` nor ``oidc``, even lazily, so it runs without CryptoLayer."""
    svc = SVCS["internships"]
    auth, google = svc.functions["AuthFunction"], svc.functions["GoogleAuthFunction"]
    assert not closure(auth.handler.rpartition(".")[0]) & RS256_MODULES
    assert closure(google.handler.rpartition(".")[0]) & RS256_MODULES == {"internships.accounts.google",
                                                                        "internships.accounts.oidc"}
    routes = {r.route_key for r in svc.routes if r.function == "GoogleAuthFunction"}
    assert routes == {"GET /api/auth/google", "GET /api/auth/google/callback"}


@pytest.mark.parametrize("name", sorted(SVCS))
def test_crypto_layer_resource(name):
    svc = SVCS[name]
    layers = svc.resources_of("AWS::Serverless::LayerVersion")
    used = any("CryptoLayer" in fn.layers for fn in svc.functions.values())
    assert ("CryptoLayer" in layers) == used, "a CryptoLayer resource only where a function uses it"
    if used:
        res = layers["CryptoLayer"]
        assert res["Properties"]["ContentUri"] == "../../layers/crypto"
        assert res["Properties"]["CompatibleRuntimes"] == ["python3.11"]
        assert res["Properties"]["CompatibleArchitectures"] == ["arm64"]
        assert res["Metadata"] == {"BuildMethod": "python3.11", "BuildArchitecture": "arm64"}


def test_the_crypto_layer_folder_is_requirements_only():
    assert sorted(p.name for p in (ROOT / "layers" / "crypto").iterdir()) == ["requirements.txt"]


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


def test_fpdf2_makes_our_pdfs_without_cryptography():
    """fpdf2 imports cryptography optionally (encryption, signing: we use neither)."""
    code = BLOCK + """
from fpdf import FPDF
pdf = FPDF()
pdf.add_page()
pdf.set_font("helvetica", size=12)
pdf.cell(text="Certificate")
out = bytes(pdf.output())
assert out.startswith(b"%PDF") and "cryptography" not in sys.modules
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr


def test_google_sign_in_without_cryptography_is_a_refusal_with_an_error_log(monkeypatch, caplog):
    from internships.accounts import google  # noqa: PLC0415
    from lambdakit.pyjwt import jwt  # noqa: PLC0415

    monkeypatch.setattr(jwt.algorithms, "has_crypto", False)
    with caplog.at_level(logging.ERROR, logger="internships.google"), pytest.raises(google.SignInFailed) as exc:
        google.verify_id_token("header.payload.signature", "nonce")
    assert exc.value.reason == "provider_unavailable"
    assert any("no CryptoLayer" in r.getMessage() and r.levelno == logging.ERROR for r in caplog.records)
