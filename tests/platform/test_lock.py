"""`make lock` (tools/lock.py): the committed layer requirements are what it writes.

``make lock`` resolves with pip against the package index; here, offline, the closure of
``requirements/runtime.in`` is read from the installed virtualenv (which ``make venv`` installs
from ``dev.lock``, so it holds the same pins) and handed to ``lock.layer_files``: the result
must equal the committed ``layers/shared/requirements.txt``. And no layer ships cryptography
(docs/platform.md, "Layers"): it stays a dev dependency.
"""
from __future__ import annotations

import sys
from importlib import metadata
from pathlib import Path

import pytest
from packaging.markers import default_environment
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import lock  # noqa: E402

#: The Lambda runtime's interpreter (python3.13 on Linux), for the environment markers.
MARKERS = {**default_environment(), "python_version": "3.13", "sys_platform": "linux", "platform_system": "Linux"}


def _roots(path: Path) -> list[Requirement]:
    out = []
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line and not line.startswith("-"):
            out.append(Requirement(line))
    return out


def installed_closure(roots: list[Requirement]) -> dict[str, str]:
    """``{distribution name: version}`` of ``roots`` and everything they need (with their
    extras), as installed in this virtualenv."""
    pins: dict[str, str] = {}
    seen: set[tuple[str, frozenset[str]]] = set()
    todo = [(r.name, frozenset(r.extras)) for r in roots]
    while todo:
        name, extras = todo.pop()
        if (lock.norm(name), extras) in seen:
            continue
        seen.add((lock.norm(name), extras))
        dist = metadata.distribution(name)
        pins[dist.metadata["Name"]] = dist.version
        for spec in dist.requires or []:
            req = Requirement(spec)
            if req.marker is None or any(req.marker.evaluate({**MARKERS, "extra": e}) for e in ({""} | extras)):
                todo.append((req.name, frozenset(req.extras)))
    return pins


def _dev_pins() -> dict[str, str]:
    lines = (ROOT / "requirements" / "dev.lock").read_text().splitlines()
    return dict(ln.split("==", 1) for ln in lines if "==" in ln and not ln.startswith("#"))  # type: ignore[misc]


@pytest.fixture(scope="module")
def runtime() -> dict[str, str]:
    dev = {lock.norm(n): v for n, v in _dev_pins().items()}
    pins = installed_closure(_roots(ROOT / "requirements" / "runtime.in"))
    stale = {n: (v, dev.get(lock.norm(n))) for n, v in pins.items() if dev.get(lock.norm(n)) != v}
    if stale:
        pytest.skip(f"the virtualenv does not match dev.lock (run `make venv`): {stale}")
    return pins


def test_committed_layer_requirements_are_what_make_lock_writes(runtime):
    files = lock.layer_files(runtime, _dev_pins())
    assert set(files) == {lock.LAYER_REQ}
    for path, text in files.items():
        assert path.read_text() == text, f"{path.relative_to(ROOT)} differs from what `make lock` writes"


def test_no_runtime_package_needs_cryptography(runtime):
    """The runtime closure (what the layer ships) holds neither cryptography nor its native
    dependencies; it stays in dev.lock for the tests and the local stand-ins."""
    names = {lock.norm(n) for n in runtime}
    assert not names & {"cryptography", "cffi", "pycparser"}, sorted(names & {"cryptography", "cffi", "pycparser"})
    assert not any(r.extras for r in _roots(ROOT / "requirements" / "runtime.in") if lock.norm(r.name) == "pyjwt")
    assert "cryptography" in {lock.norm(n) for n in _dev_pins()}
    assert "cryptography" in lock.direct_names(ROOT / "requirements" / "dev.in")


def test_headers_and_the_lambda_provided_sdk():
    runtime = {"PyJWT": "2.0", "pydantic": "2", "botocore": "1"}
    dev = {**runtime, "boto3": "1", "s3transfer": "0.1", "pytest": "8", "cryptography": "46"}
    files = lock.layer_files(runtime, dev)
    assert set(files) == {lock.LAYER_REQ}
    shared = [ln for ln in files[lock.LAYER_REQ].splitlines() if not ln.startswith("#")]
    assert shared == ["boto3==1", "botocore==1", "pydantic==2", "PyJWT==2.0", "s3transfer==0.1"]
    without_botocore = lock.layer_files({"PyJWT": "2.0"}, dev)[lock.LAYER_REQ]
    assert [ln for ln in without_botocore.splitlines() if not ln.startswith("#")] == ["PyJWT==2.0"]


def test_a_runtime_closure_with_cryptography_stops_make_lock():
    with pytest.raises(SystemExit, match="cryptography"):
        lock.layer_files({"PyJWT": "2.0", "cryptography": "46", "cffi": "2"}, {})
