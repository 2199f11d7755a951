"""Install the Debian packages listed in .ci/apt/*.txt that are missing (outside tools for tests).

``python tools/ensure_apt.py``: best effort (exit 0 even when it cannot install; prints what is
missing). ``--strict`` (CI): exit 1 when a listed package is still missing afterwards.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def listed() -> list[str]:
    names: list[str] = []
    for f in sorted((ROOT / ".ci" / "apt").glob("*.txt")):
        for line in f.read_text().splitlines():
            line = line.split("#", 1)[0].strip()
            if line and line not in names:
                names.append(line)
    return names


def missing(names: list[str]) -> list[str]:
    if not shutil.which("dpkg-query"):
        return names
    out = []
    for n in names:
        r = subprocess.run(["dpkg-query", "-W", "-f=${Status}", n], capture_output=True, text=True)
        if "install ok installed" not in r.stdout:
            out.append(n)
    return out


def main() -> int:
    strict = "--strict" in sys.argv
    todo = missing(listed())
    if todo and shutil.which("apt-get") and os.geteuid() == 0:
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        subprocess.run(["apt-get", "update", "-qq"], env=env, check=False)
        subprocess.run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", *todo], env=env, check=False)
        todo = missing(todo)
    if todo:
        print(f"ensure_apt: missing Debian packages: {' '.join(todo)} (tests that need them skip locally, fail in CI)")
        return 1 if strict else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
