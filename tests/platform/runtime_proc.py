"""Start ``python -m local_runtime`` in a subprocess on free ports (used by the e2e tests)."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RuntimeProcess:
    def __init__(self, tmp: Path, root_template: Path | None = None, services: tuple[str, ...] = (),
                 extra_env: dict[str, str] | None = None) -> None:
        self.dev_json = tmp / "dev.json"
        self.log = tmp / "runtime.log"
        self._args = (root_template, services, extra_env)
        self._spawn(root_template, services, extra_env)

    def _spawn(self, root_template: Path | None, services: tuple[str, ...], extra_env: dict[str, str] | None) -> None:
        self.emulator_port = free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "CAMPAIGNS_", "EXAMS_", "INTERNSHIPS_"))}
        env.update({"LOCAL_DEV_JSON": str(self.dev_json), "LOCAL_EMULATOR_PORT": str(self.emulator_port),
                    "LOCAL_CONTROL_PORT": str(free_port()), "PYTHONUNBUFFERED": "1"})
        for s in services:
            env[f"LOCAL_{s.upper()}_PORT"] = str(free_port())
        if root_template:
            env["LOCAL_ROOT_TEMPLATE"] = str(root_template)
        env.update(extra_env or {})
        self.env = env
        self.proc = subprocess.Popen([sys.executable, "-m", "local_runtime"], cwd=ROOT, env=env,
                                     stdout=open(self.log, "wb"), stderr=subprocess.STDOUT)

    def wait_ready(self, timeout: float = 60) -> dict:
        deadline = time.monotonic() + timeout
        retries = 3
        while time.monotonic() < deadline:
            if self.proc.poll() is not None and retries and b"Address already in use" in self.log.read_bytes():
                # another test process took one of the free ports between probe and bind: new ports
                retries -= 1
                self._spawn(*self._args)
                continue
            if self.proc.poll() is not None:
                raise RuntimeError(f"runtime exited {self.proc.returncode}:\n{self.log.read_text()}")
            if b"Local runtime ready" in self.log.read_bytes() and self.dev_json.exists():
                return json.loads(self.dev_json.read_text())
            time.sleep(0.1)
        raise TimeoutError(self.log.read_text())

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                return -9
        return self.proc.returncode
