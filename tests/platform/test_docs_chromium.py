"""/docs renders Swagger UI in headless Chromium with no request leaving 127.0.0.1.

Chromium runs with every host except 127.0.0.1 made unresolvable (``--host-resolver-rules``),
so a page that needed a CDN or any other remote host could not render. The test asserts that
Swagger UI rendered the service's operations from ``/openapi.json`` with its Authorize button
(and keeps a credential across reloads: ``persistAuthorization`` in ``/docs/init.js``), and saves a screenshot
next to the runtime log for a person to look at. Skipped where Chromium is not installed
(``apt-get install chromium``); see docs/platform.md.
"""
from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.platform.runtime_proc import RuntimeProcess

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1", "--virtual-time-budget=15000"]


@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium not installed (apt-get install chromium)")
def test_swagger_ui_renders_offline_in_headless_chromium(tmp_path):
    rt = RuntimeProcess(tmp_path, services=("campaigns", "exams", "internships"))
    try:
        dev = rt.wait_ready(timeout=60)
        for service, expected in (("campaigns", "/contacts"), ("exams", "/api/tests"),
                                  ("internships", "/api/auth/login")):
            url = dev[service]["base_url"] + "/docs"
            profile = tmp_path / f"profile-{service}"
            dom = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "--dump-dom", url],
                                 capture_output=True, text=True, timeout=120).stdout
            assert "swagger-ui" in dom, dom[:500]
            # operations are only in the DOM once the JS bundle ran and /openapi.json loaded
            assert "opblock" in dom and expected in dom, f"{service}: Swagger UI did not render operations"
            # the Authorize button exists only for a document with security schemes (issue 31)
            assert 'class="btn authorize' in dom, f"{service}: no Authorize button"
            subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}-shot", "--window-size=1280,1600",
                            f"--screenshot={tmp_path / f'docs-{service}.png'}", url],
                           capture_output=True, timeout=120)
        init = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / 'profile-init'}", "--dump-dom",
                               dev["campaigns"]["base_url"] + "/docs/init.js"], capture_output=True, text=True,
                              timeout=120).stdout
        assert "persistAuthorization: true" in init
    finally:
        assert rt.stop() == 0
