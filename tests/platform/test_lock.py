"""`make lock` (tools/lock.py): the committed layer requirements are what it writes.

``make lock`` resolves with pip against the package index; here, offline, the closure of
``requirements/runtime.in`` is read from the installed virtualenv (which ``make venv`` installs
from ``dev.lock``, so it holds the same pins) and handed to ``lock.layer_files``: the result
must equal the committed ``layers/shared/requirements.txt`` and ``layers/crypto/requirements.txt``.
"""
from __future__ import annotations

import re
import sys
from importlib import metadata
from pathlib import Path

import pytest
from packaging.markers import default_environment
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import lock  # noqa: E402

#: The Lambda runtime's interpreter (python3.11 on Linux), for the environment markers.
MARKERS = {**default_environment(), "python_version": "3.11", "sys_platform": "linux", "platform_system": "Linux"}


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
    assert set(files) == {lock.LAYER_REQ, lock.CRYPTO_REQ}
    for path, text in files.items():
        assert path.read_text() == text, f"{path.relative_to(ROOT)} differs from what `make lock` writes"


def test_the_crypto_layer_is_cryptography_and_its_dependencies_only(runtime):
    """runtime.in's ``# crypto-layer:`` line names exactly the closure of ``cryptography``
    (nothing the shared layer needs, nothing of cryptography's left in the shared layer)."""
    names = lock.crypto_names()
    closure = {lock.norm(n) for n in installed_closure([Requirement("cryptography")])}
    assert names == closure
    # every other root without its extras (PyJWT[crypto] → PyJWT): what the shared layer needs
    shared_needs = {lock.norm(n) for n in installed_closure(
        [Requirement(r.name) for r in _roots(ROOT / "requirements" / "runtime.in") if lock.norm(r.name) not in names])}
    assert not names & shared_needs, "a crypto-layer package that a shared-layer package requires"


def test_split_and_headers():
    runtime = {"PyJWT": "2.0", "cryptography": "46", "cffi": "2", "pycparser": "3", "pydantic": "2", "botocore": "1"}
    dev = {**runtime, "boto3": "1", "s3transfer": "0.1", "pytest": "8"}
    files = lock.layer_files(runtime, dev, {"cryptography", "cffi", "pycparser"})
    shared = [ln for ln in files[lock.LAYER_REQ].splitlines() if not ln.startswith("#")]
    crypto = [ln for ln in files[lock.CRYPTO_REQ].splitlines() if not ln.startswith("#")]
    assert shared == ["boto3==1", "botocore==1", "pydantic==2", "PyJWT==2.0", "s3transfer==0.1"]
    assert crypto == ["cffi==2", "cryptography==46", "pycparser==3"]
    with pytest.raises(SystemExit, match="not runtime packages"):
        lock.layer_files(runtime, dev, {"cryptography", "nacl"})


def test_crypto_names_come_from_runtime_in():
    text = (ROOT / "requirements" / "runtime.in").read_text()
    assert re.search(r"^# crypto-layer: cryptography cffi pycparser$", text, re.M)
    assert lock.crypto_names() == {"cryptography", "cffi", "pycparser"}
