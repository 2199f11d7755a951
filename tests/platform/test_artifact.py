"""Issue #18 item 9: the built artifact works as Lambda loads it.

``sam build`` (container-free, as CI does) is run once and cached in a temp directory keyed by
a hash of everything that goes into it (templates, function code, layer, requirements);
``ARTIFACT_BUILD_DIR`` names a build to use instead, and ``.aws-sam/build`` is reused when it is
newer than every source file. Then every function of the three templates is imported from
its own built folder and the ``python/`` of exactly the built layers its template gives it
(``SharedLayer``, every function's only layer) only (plus the packages
the Lambda runtime itself provides), in a fresh ``python -I -S`` process, with the environment its
template gives it and tracing on as in Lambda, and invoked with its sample event
(``events/functions/``) against the AWS emulator. Nothing may be imported from anywhere else.

The build is for arm64 (the templates' architecture). When this machine is not arm64, the
layer's packages with native code are swapped for the same versions from the virtualenv
(the versions are checked to match); every other file comes from the build.

Negative checks: a layer copy without one package, a handler path typo and a module that
only the dev environment has all fail the same runner. No cryptography in the artifact: HS256
functions and an RS256 one (exams' Cognito ID token, verified by ``lambdakit.rs256``) serve with
cryptography not importable (docs/platform.md, "Layers").
"""
from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import lambda_sandbox as sb  # noqa: E402

from local_runtime.stack import load_all  # noqa: E402

SERVICES = load_all()
FUNCTIONS = [(s.name, lid) for s in SERVICES.values() for lid in sorted(s.functions)]
BUILD_DIR_NAMES = {"campaigns": "CampaignsService", "exams": "ExamsService", "internships": "InternshipsService"}
SOURCES = ["template.yaml", "functions", "layers/shared", "requirements"]


def _source_files() -> list[Path]:
    out = []
    for s in SOURCES:
        p = ROOT / s
        if p.is_file():
            out.append(p)
            continue
        out += [f for f in p.rglob("*") if f.is_file() and "__pycache__" not in f.parts and f.suffix != ".pyc"]
    return sorted(out)


def _source_hash() -> str:
    h = hashlib.sha256()
    for f in _source_files():
        h.update(str(f.relative_to(ROOT)).encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def _fresh(build: Path) -> bool:
    tpl = build / "template.yaml"
    return tpl.exists() and tpl.stat().st_mtime > max(f.stat().st_mtime for f in _source_files())


def _precompiled(build: Path) -> Path:
    """What `make build` ships: the build plus its bytecode (tools/precompile.py)."""
    if not (build / ".precompiled").exists():
        r = subprocess.run([sys.executable, str(ROOT / "tools" / "precompile.py"), str(build)],
                           capture_output=True, text=True, timeout=900)
        assert r.returncode == 0, (r.stdout + r.stderr)[-4000:]
        (build / ".precompiled").write_text(r.stdout)
    return build


def _build() -> Path:
    if os.environ.get("ARTIFACT_BUILD_DIR"):
        return _precompiled(Path(os.environ["ARTIFACT_BUILD_DIR"]))
    if _fresh(ROOT / ".aws-sam" / "build"):
        return _precompiled(ROOT / ".aws-sam" / "build")
    cache = Path(tempfile.gettempdir()) / "lambda-artifact"
    cache.mkdir(exist_ok=True)
    out = cache / _source_hash()
    with open(cache / "lock", "w") as lock:  # one build for all pytest workers
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (out / "build" / ".complete").exists():
            shutil.rmtree(out, ignore_errors=True)
            out.mkdir(parents=True)
            sam = Path(sys.executable).parent / "sam"
            r = subprocess.run([str(sam), "build", "--template-file", str(ROOT / "template.yaml"),
                                "--build-dir", str(out / "build"), "--cache-dir", str(cache / "sam-cache"),
                                "--cached", "--parallel"], cwd=ROOT, capture_output=True, text=True, timeout=900,
                               # sam looks for python3.13 on PATH (a pyenv shim of an inactive version fails)
                               env={**os.environ, "PATH": f"{sam.parent}{os.pathsep}{os.environ.get('PATH', '')}"})
            assert r.returncode == 0, (r.stdout + r.stderr)[-4000:]
            (out / "build" / ".complete").write_text("ok\n")
        return _precompiled(out / "build")


# ------------------------------------------------------------------ native code of another architecture
def _machine(path: Path) -> int | None:
    with open(path, "rb") as f:
        head = f.read(20)
    if head[:4] != b"\x7fELF":
        return None
    return int.from_bytes(head[18:20], "little" if head[5] == 1 else "big")


HOST_MACHINE = _machine(Path(os.path.realpath(sys.executable)))
SITE = Path(sysconfig.get_paths()["purelib"])


def _foreign_native(entry: Path) -> bool:
    files = [entry] if entry.is_file() else [f for f in entry.rglob("*") if f.is_file()]
    return any((".so" in f.name) and _machine(f) not in (None, HOST_MACHINE) for f in files)


def _dist_versions(layer: Path) -> dict[str, str]:
    out = {}
    for d in layer.glob("*.dist-info"):
        name, _, version = d.name[: -len(".dist-info")].partition("-")
        out[name.lower().replace("_", "-")] = version
    return out


def host_view(layer: Path, dest: Path, *, drop: tuple[str, ...] = ()) -> Path:
    """The built layer as this machine can run it: a directory of links to the layer's
    entries; entries holding native code for another architecture link to the same package
    of the virtualenv instead (same version, checked). ``drop``: entries to leave out."""
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    built, local = _dist_versions(layer), _dist_versions(SITE)
    for entry in sorted(layer.iterdir()):
        if entry.name in drop:
            continue
        target = entry
        if _foreign_native(entry):
            stem = entry.name.split(".")[0]
            matches = [p for p in SITE.iterdir() if p.name == entry.name or (entry.is_file() and p.is_file() and
                                                                           p.name.split(".")[0] == stem
                                                                           and ".so" in p.name)]
            assert matches, f"no host build of {entry.name} in the virtualenv"
            target = matches[0]
            (dest / target.name).symlink_to(target)
            continue
        (dest / entry.name).symlink_to(target)
    swapped = {n for n in built if n in local}
    mismatched = {n: (built[n], local[n]) for n in swapped if built[n] != local[n]}
    assert not mismatched, f"layer and virtualenv pin different versions: {mismatched}"
    return dest


# ------------------------------------------------------------------ fixtures
@pytest.fixture(scope="module")
def artifact(tmp_path_factory):
    build = _build()
    tmp = tmp_path_factory.mktemp("artifact")
    layers: dict[str, dict[str, Path]] = {}  # {service: {layer logical id: host view of its python/}}
    for svc, d in BUILD_DIR_NAMES.items():
        used = sorted({lid for fn in SERVICES[svc].functions.values() for lid in fn.layers})
        layers[svc] = {}
        for lid in used:
            if lid == "FontsLayer":  # fonts only, no python/: typefaces finds them in layers/fonts/fonts here
                continue
            layer = build / d / lid / "python"
            assert layer.is_dir(), f"no built layer at {layer}"
            layers[svc][lid] = host_view(layer, tmp / f"layer-{svc}-{lid}")
    with sb.Emulator(tmp, seed=True) as emu:  # the sample items the events' placeholders name
        yield {"build": build, "layers": layers, "runtime": sb.runtime_dir(tmp), "emu": emu, "tmp": tmp}


def _paths(artifact, svc: str, lid: str, layer: Path | None = None, *, layers: list[str] | None = None) -> list[str]:
    """The built function's folder, its layers' ``python/`` (the template's ``fn.layers``, or
    ``layers``; ``layer`` stands in for the shared one) and the runtime packages."""
    fn_dir = artifact["build"] / BUILD_DIR_NAMES[svc] / lid
    assert fn_dir.is_dir(), f"no built folder for {svc}.{lid}"
    views = artifact["layers"][svc]
    chosen = SERVICES[svc].functions[lid].layers if layers is None else layers
    return [str(fn_dir), *(str(layer if layer is not None and name == "SharedLayer" else views[name])
                            for name in chosen if name != "FontsLayer"), str(artifact["runtime"])]


def _invoke(artifact, svc: str, lid: str, *, handler: str | None = None, layer: Path | None = None,
            event: dict | None = None, layers: list[str] | None = None, extra: list[str] = (),
            env: dict[str, str] | None = None) -> dict:
    fn = SERVICES[svc].functions[lid]
    env = {**sb.base_env(artifact["emu"].endpoint), **artifact["emu"].function_env(svc, lid), **(env or {})}
    return sb.invoke([*_paths(artifact, svc, lid, layer, layers=layers), *extra], handler or fn.handler,
                     event if event is not None else _sample(artifact, svc, lid), env, name=f"{svc}-{lid}")


def _sample(artifact, svc: str, lid: str) -> dict:
    """The sample event with its placeholders filled and, for HTTP events without their own
    ``Authorization``, the service's dev principal (as bench_coldrequest sends them)."""
    emu = artifact["emu"]
    ev = sb.event_for(svc, lid, emu.state["ids"])
    assert "{{" not in json.dumps(ev), f"{svc}.{lid}: a placeholder the seed does not fill"
    if "routeKey" in ev and "authorization" not in ev["headers"]:
        ev["headers"].update(emu.state["auth"].get(svc, {}))
    return ev


# ------------------------------------------------------------------ tests
#: HTTP functions whose every route answers a redirect: their sample's documented one (the route's
#: description; events/README.md), the end of its Location. GoogleAuthFunction's sign-in start in a
#: stack without GoogleClientId (the sandbox's) reads the state key, then redirects.
REDIRECT_SAMPLES = {("internships", "GoogleAuthFunction"): "/login?error=google_not_configured"}


def test_every_function_has_a_sample_event():
    r = subprocess.run([sys.executable, "tools/function_events.py", "--check"], cwd=ROOT, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.parametrize("svc,lid", FUNCTIONS, ids=[f"{s}.{f}" for s, f in FUNCTIONS])
def test_built_function_loads_and_serves_its_sample_event(artifact, svc, lid):
    fn = SERVICES[svc].functions[lid]
    r = _invoke(artifact, svc, lid)
    assert r["ok"], f"{svc}.{lid}: {r.get('error')}\n{r.get('traceback') or r.get('stderr')}"
    assert r["foreign_modules"] == [], f"imported from outside the artifact: {r['foreign_modules']}"
    result = r["result"]
    kinds = {e.get("Type") for e in fn.events.values()}
    if (svc, lid) in REDIRECT_SAMPLES:  # every route of the function redirects (events/README.md)
        headers = {k.lower(): v for k, v in (result.get("headers") or {}).items()}
        assert result["statusCode"] == 302 and headers["location"].endswith(REDIRECT_SAMPLES[svc, lid]), result
        assert "x-request-id" in headers
    elif "HttpApi" in kinds and isinstance(result, dict) and "statusCode" in result:
        # issue #21: the representative request reads a real item (events/README.md)
        assert 200 <= result["statusCode"] < 300, f"{svc}.{lid}: {result}"
        headers = {k.lower() for k in result.get("headers") or {}}
        assert "x-request-id" in headers
    elif "SQS" in kinds:
        assert isinstance(result, dict) and result.get("batchItemFailures") == [], f"{svc}.{lid}: {result}"
    else:
        assert isinstance(result, dict), result
    assert "Traceback" not in r["logs"] + r["stderr"], r["logs"] + r["stderr"]


def test_the_artifact_ships_bytecode_for_every_module(artifact):
    """Issue #21: what `make build` deploys carries an unchecked-hash .pyc (PEP 552 flags 0b01)
    beside every module of every function and layer: Lambda's code folders are read-only, so
    without it each cold start compiles every module it imports (tools/precompile.py)."""
    tag = sys.implementation.cache_tag
    missing, checked = [], 0
    for d in BUILD_DIR_NAMES.values():
        for py in (artifact["build"] / d).rglob("*.py"):
            if "__pycache__" in py.parts:
                continue
            pyc = py.parent / "__pycache__" / f"{py.stem}.{tag}.pyc"
            checked += 1
            if not pyc.exists() or int.from_bytes(pyc.read_bytes()[4:8], "little") != 0b01:
                missing.append(str(py.relative_to(artifact["build"])))
    assert checked > 5000 and not missing, missing[:20]


def test_a_package_missing_from_the_layer_fails(artifact):
    layer = artifact["build"] / "CampaignsService" / "SharedLayer" / "python"
    broken = host_view(layer, artifact["tmp"] / "layer-without-pydantic", drop=("pydantic",))
    r = _invoke(artifact, "campaigns", "ContactsFunction", layer=broken)
    assert not r["ok"] and "No module named 'pydantic'" in r["error"]


def test_the_xray_sdk_comes_from_the_layer(artifact):
    layer = artifact["build"] / "ExamsService" / "SharedLayer" / "python"
    broken = host_view(layer, artifact["tmp"] / "layer-without-xray", drop=("aws_xray_sdk",))
    r = _invoke(artifact, "exams", "HealthFunction", layer=broken)
    assert not r["ok"] and "aws_xray_sdk" in r["error"]


def test_a_handler_path_typo_fails(artifact):
    r = _invoke(artifact, "internships", "HealthFunction", handler="internships.health.handlr.lambda_handler")
    assert not r["ok"] and "ModuleNotFoundError" in r["error"]


def test_a_module_only_the_dev_environment_has_fails(artifact, tmp_path):
    # a copy of a built function whose handler imports moto (dev-only): must not be found
    src = artifact["build"] / "CampaignsService" / "HealthFunction"
    fn_dir = tmp_path / "HealthFunction"
    # without its bytecode: the shipped .pyc are unchecked-hash, so an edited source would not be read
    shutil.copytree(src, fn_dir, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
    handler = fn_dir / "campaigns" / "health" / "handler.py"
    handler.write_text(handler.read_text().replace("from __future__ import annotations\n",
                                                   "from __future__ import annotations\nimport moto  # noqa\n", 1))
    env = {**sb.base_env(artifact["emu"].endpoint), **artifact["emu"].function_env("campaigns", "HealthFunction")}
    r = sb.invoke([str(fn_dir), str(artifact["layers"]["campaigns"]["SharedLayer"]), str(artifact["runtime"])],
                  "campaigns.health.handler.lambda_handler", sb.event_for("campaigns", "HealthFunction"), env)
    assert not r["ok"] and "No module named 'moto'" in r["error"]


def test_sample_events_name_real_routes():
    for svc, lid in FUNCTIONS:
        ev = sb.event_for(svc, lid)
        if "routeKey" in ev:
            m = SERVICES[svc].match(ev["requestContext"]["http"]["method"], ev["rawPath"])
            assert m and m[0].function == lid and m[0].route_key == ev["routeKey"], (svc, lid)
            assert re.fullmatch(r"[0-9a-f]{16}", ev["requestContext"]["requestId"])


# ------------------------------------------------------------------ no cryptography
PROBE = """import importlib, importlib.util, os, sys


def lambda_handler(event, context):
    mod, _, attr = os.environ["PROBED_HANDLER"].rpartition(".")
    result = getattr(importlib.import_module(mod), attr)(event, context)
    return {"result": result, "crypto_importable": importlib.util.find_spec("cryptography") is not None,
            "crypto_imported": "cryptography" in sys.modules, "jwt_imported": "jwt" in sys.modules,
            "rs256_imported": "lambdakit.rs256" in sys.modules}
"""


def _probe(artifact, tmp_path, svc: str, lid: str) -> dict:
    """The function served its sample event as built; plus whether cryptography was importable
    and imported (a wrapper handler on a path after the function's own)."""
    (tmp_path / "crypto_probe.py").write_text(PROBE)
    fn = SERVICES[svc].functions[lid]
    return _invoke(artifact, svc, lid, handler="crypto_probe.lambda_handler", extra=[str(tmp_path)],
                   env={"PROBED_HANDLER": fn.handler})


def test_no_built_layer_holds_cryptography(artifact):
    for svc, views in artifact["layers"].items():
        assert set(views) == {"SharedLayer"}, svc
        shared = artifact["build"] / BUILD_DIR_NAMES[svc] / "SharedLayer" / "python"
        assert not {"cryptography", "cffi", "pycparser"} & set(_dist_versions(shared)), svc
        assert not (shared / "cryptography").exists(), svc


@pytest.mark.parametrize("lid", ["LearningFunction", "AuthFunction"])
def test_an_hs256_function_serves_without_cryptography(artifact, tmp_path, lid):
    """internships' HS256 session tokens: PyJWT runs without cryptography (not importable)."""
    assert SERVICES["internships"].functions[lid].layers == ["SharedLayer"]
    r = _probe(artifact, tmp_path, "internships", lid)
    assert r["ok"], r.get("traceback") or r.get("stderr")
    out = r["result"]
    assert out["result"]["statusCode"] == 200, out["result"]
    assert out["jwt_imported"] and not out["crypto_importable"] and not out["crypto_imported"]


def test_an_rs256_function_verifies_without_cryptography(artifact, tmp_path):
    """exams' Cognito ID token (RS256) verified by ``lambdakit.rs256``, cryptography not importable."""
    assert SERVICES["exams"].functions["UsersFunction"].layers == ["SharedLayer"]
    r = _probe(artifact, tmp_path, "exams", "UsersFunction")
    assert r["ok"], r.get("traceback") or r.get("stderr")
    assert r["foreign_modules"] == [], r["foreign_modules"]
    out = r["result"]
    assert out["result"]["statusCode"] == 200, out["result"]
    assert out["rs256_imported"] and not out["crypto_importable"] and not out["crypto_imported"]
