"""The README's "First five minutes" blocks work as written (issue 31 item 6).

The real ``python -m local_runtime`` (what ``make dev`` runs; free ports) starts with a clean
state; each ```bash block of the README section runs in bash with ``curl``, ``jq`` and ``openssl``
from a directory whose ``.local/dev.json`` is the runtime's, as a newcomer runs it from the
repository root. The blocks read every base URL and credential from that file, so the same text
works on the default ports. Each block must end on its first result: the mail in the campaigns
outbox, the exams guest attempt graded 1/1 for the client admin, the paid internships enrollment
with its invoice.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

from tests.platform.runtime_proc import RuntimeProcess
from tests.tooling import require_binary

ROOT = Path(__file__).resolve().parents[3]
EXPECT = {  # block → what its last commands print when the path worked end to end
    "campaigns": ['"subject": "Hello Ada"', "Hi Ada!"],
    "exams": ['"guest_name":"Grace","status":"submitted","score":1,"percentage":100'],
    "internships": ['"name":"Web Development"', '"status":"active","paymentStatus":"paid","invoiceNumber":"INV/'],
}


def blocks() -> list[str]:
    text = (ROOT / "README.md").read_text()
    section = text.split("## First five minutes", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```bash\n(.*?)```", section, flags=re.S)


def test_the_section_has_one_block_per_service():
    found = blocks()
    assert len(found) == 3
    for block, service in zip(found, EXPECT, strict=True):
        assert f".{service}.base_url" in block


def test_the_blocks_reach_a_first_result(tmp_path):
    for tool in ("bash", "curl", "jq", "openssl"):
        require_binary(tool)
    (tmp_path / "rt").mkdir()
    rt = RuntimeProcess(tmp_path / "rt", services=tuple(EXPECT))
    try:
        dev = rt.wait_ready(timeout=120)
        cwd = tmp_path / "repo"
        (cwd / ".local").mkdir(parents=True)
        (cwd / ".local" / "dev.json").write_text(json.dumps(dev))
        for block, (service, expected) in zip(blocks(), EXPECT.items(), strict=True):
            done = subprocess.run([shutil.which("bash") or "bash", "-eo", "pipefail", "-c", block], cwd=cwd,
                                  capture_output=True, text=True, timeout=300)
            assert done.returncode == 0, f"{service}: {done.stdout}\n{done.stderr}"
            for fragment in expected:
                assert fragment in done.stdout, f"{service}: {fragment!r} not in\n{done.stdout}\n{done.stderr}"
    finally:
        assert rt.stop() == 0
