"""``lambdakit/botodata``: the cut of botocore's data the clients are built from (issue 21)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import botocore
import pytest

from lambdakit import aws

ROOT = Path(__file__).resolve().parents[2]


def test_committed_cut_matches_the_installed_botocore():
    """A botocore pin change without `make botodata` fails here (the cut would be ignored)."""
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "botodata.py"), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert (aws.DATA_DIR / "VERSION").read_text().strip() == botocore.__version__


@pytest.fixture
def fresh_sessions():
    aws.reset()
    yield
    aws.reset()


@pytest.mark.parametrize("service", aws.BUNDLED_SERVICES)
def test_bundled_services_load_only_the_cut(service, fresh_sessions, monkeypatch):
    monkeypatch.setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9")
    c = aws.client(service)
    paths = [Path(p) for p in c._loader.search_paths]  # noqa: SLF001
    assert paths[0] == aws.DATA_DIR
    assert not any(p == Path(botocore.__file__).parent / "data" for p in paths)
    assert c.meta.service_model.service_name == service


def test_other_services_and_other_releases_use_botocores_own_data(fresh_sessions, monkeypatch):
    monkeypatch.setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9")
    own = Path(botocore.__file__).parent / "data"
    c = aws.client("sns")  # not bundled
    assert own in [Path(p) for p in c._loader.search_paths]  # noqa: SLF001
    aws.reset()
    monkeypatch.setattr(botocore, "__version__", "0.0.0")  # a cut of another release is not used
    c = aws.client("dynamodb")
    assert own in [Path(p) for p in c._loader.search_paths]  # noqa: SLF001
