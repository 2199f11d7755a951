"""``make dev``: the whole application on one machine, in one process, without Docker.

1. moto in server mode (the AWS emulator) on ``LOCAL_EMULATOR_HOST:LOCAL_EMULATOR_PORT``
   (127.0.0.1:4566); product code reaches it only through ``AWS_ENDPOINT_URL``.
2. Every resource the templates declare, created by parsing them (``provision``).
3. An HTTP front per service (``front``): campaigns :3001, exams :3002, internships :3003
   (``LOCAL_<SERVICE>_PORT``).
4. SQS event sources (``sqs``) and EventBridge schedules (``schedule``).
5. Each service's ``<svc>.devseed.seed()`` (if it exists), then ``.local/dev.json``.
6. A control endpoint (``LOCAL_CONTROL_PORT``, 3099) for ``make invoke``.
7. With the internships service: an OpenID Connect provider standing in for Google on
   ``127.0.0.1:LOCAL_OIDC_PORT`` (9400; a free port when busy; ``LOCAL_OIDC=0`` turns it off),
   with the service's client registered and the service pointed at it (``oidc``); how to sign
   in is written under ``internships.google`` in dev.json.
8. CORS from each template's ``CorsConfiguration`` (``cors``), with ``AllowedOrigins`` locally =
   every front's origin (127.0.0.1 and localhost), ``DEV_ORIGINS`` and ``LOCAL_CORS_ORIGINS``
   (comma separated); written as ``cors_origins`` in dev.json.

Ctrl-C (or SIGTERM) stops everything; the emulator keeps no state between runs.
"""
from __future__ import annotations

import contextlib
import datetime as dt
import importlib
import importlib.util
import json
import logging
import os
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from . import invoke as inv
from .cors import CorsConfig
from .front import Front
from .provision import Clients, ServiceEnv, provision
from .schedule import Schedule, schedules_of
from .sqs import Poller, event_sources
from .stack import REGION, ROOT, Function, Service, load_all
from .testing import LOCAL_PARAMS, export_env

log = logging.getLogger("local_runtime")
_NO_LOCK = contextlib.nullcontext()
DEFAULT_PORTS = {"campaigns": 3001, "exams": 3002, "internships": 3003}
#: Browser origins a local front end is usually served from (Vite, Create React App / Next.js).
DEV_ORIGINS = ("http://localhost:5173", "http://127.0.0.1:5173", "http://localhost:3000", "http://127.0.0.1:3000")


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    return int(raw) if raw else default


class Runtime:
    def __init__(self, root_template: Path | None = None) -> None:
        self.host = os.environ.get("LOCAL_HOST", "127.0.0.1")
        self.emulator_host = os.environ.get("LOCAL_EMULATOR_HOST", "127.0.0.1")
        self.emulator_port = env_int("LOCAL_EMULATOR_PORT", 4566)
        self.control_port = env_int("LOCAL_CONTROL_PORT", 3099)
        self.dev_json = Path(os.environ.get("LOCAL_DEV_JSON", ROOT / ".local" / "dev.json"))
        #: Seconds per scheduler minute (tests compress time; 60 is real time).
        self.minute_seconds = float(os.environ.get("LOCAL_SCHEDULER_MINUTE_SECONDS", "60"))
        self.services: dict[str, Service] = load_all(root_template)
        self.envs: dict[str, ServiceEnv] = {}
        self.fronts: dict[str, Front] = {}
        self.pollers: list[Poller] = []
        self.schedules: list[tuple[Service, Schedule]] = []
        self.stopping = threading.Event()
        self._locks: dict[str, threading.Lock] = {}
        self._http_lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self._moto: Any = None
        self._control: ThreadingHTTPServer | None = None
        self.dev: dict[str, Any] = {}
        self._missing: set[str] = set()
        self.oidc: Any = None
        self._oidc_client_id = ""

    @property
    def endpoint(self) -> str:
        return f"http://{self.emulator_host}:{self.emulator_port}"

    # -- invocation ----------------------------------------------------------------------
    def invoke(self, fn: Function, event: Any) -> Any:
        """One invocation at a time per function, as one warm Lambda container.

        HTTP invocations additionally take one process-wide lock: Powertools keeps the
        current event on a class attribute (``BaseRouter.current_event``) shared by every
        resolver in the process, so two HTTP handlers of different functions running at once
        would read each other's request (on AWS each function has its own process). Queue
        workers and schedules still run alongside HTTP requests."""
        lock = self._locks.setdefault(f"{fn.service}.{fn.logical_id}", threading.Lock())
        http = isinstance(event, dict) and "routeKey" in event
        with lock, (self._http_lock if http else _NO_LOCK):
            return inv.invoke(fn, event)

    def find_function(self, name: str, service: str | None = None) -> tuple[Service, Function]:
        if "." in name and service is None:
            service, name = name.split(".", 1)
        hits = [(s, s.functions[name]) for s in self.services.values()
                if name in s.functions and (service is None or s.name == service)]
        if not hits:
            raise KeyError(f"no function {name!r}" + (f" in {service}" if service else ""))
        if len(hits) > 1:
            raise KeyError(f"{name!r} exists in {', '.join(s.name for s, _ in hits)}: pass the service too")
        return hits[0]

    def default_event(self, svc: Service, fn: Function) -> Any:
        sched = [s for s in schedules_of(fn)]
        return sched[0].event() if sched else {}

    # -- lifecycle -----------------------------------------------------------------------
    def start_emulator(self) -> None:
        from .emulator import EmulatorServer

        # moto behind a lock: one emulator request at a time, idempotent transactions (emulator.py)
        self._moto = EmulatorServer(ip_address=self.emulator_host, port=self.emulator_port)
        self._moto.start()
        os.environ["AWS_ENDPOINT_URL"] = self.endpoint
        for k, v in (("AWS_ACCESS_KEY_ID", "local"), ("AWS_SECRET_ACCESS_KEY", "local"),
                     ("AWS_DEFAULT_REGION", REGION), ("AWS_REGION", REGION)):
            os.environ.setdefault(k, v)
        os.environ.setdefault("POWERTOOLS_TRACE_DISABLED", "true")

    def front_port(self, index: int, name: str) -> int:
        return env_int(f"LOCAL_{name.upper()}_PORT", DEFAULT_PORTS.get(name, 3010 + index))

    def cors_origins(self) -> list[str]:
        """The local ``AllowedOrigins`` of every service: each front's own origin (so the pages
        and Swagger UI of one front can call the others), the usual front-end dev servers, and
        ``LOCAL_CORS_ORIGINS``."""
        out: list[str] = []
        for i, name in enumerate(self.services):
            port = self.front_port(i, name)
            out += [f"http://{h}:{port}" for h in dict.fromkeys((self.host, "127.0.0.1", "localhost"))]
        out += DEV_ORIGINS
        out += [o.strip() for o in os.environ.get("LOCAL_CORS_ORIGINS", "").split(",") if o.strip()]
        return list(dict.fromkeys(out))

    def params_for(self, index: int, name: str) -> dict[str, str]:
        """Template parameters of a service under the local runtime: ``LOCAL_PARAMS`` with its
        URLs pointing at this front's real port and ``AllowedOrigins`` = ``cors_origins()``, then
        ``LOCAL_PARAM_<SERVICE>_<Name>`` overrides."""
        params = dict(LOCAL_PARAMS.get(name, {"Stage": "local"}))
        port = self.front_port(index, name)
        base = f"http://{self.host}:{port}"
        for key in ("PublicBaseUrl", "FrontendUrl"):
            if key in params:
                params[key] = base
        if "AllowedOrigins" in (self.services[name].template.get("Parameters") or {}):
            params["AllowedOrigins"] = ",".join(self.cors_origins())
        if name == "internships" and self.oidc is not None:
            params["GoogleIssuer"] = self.oidc.issuer
            params["GoogleClientId"] = self._oidc_client_id
        prefix = f"LOCAL_PARAM_{name.upper()}_"
        for k, v in os.environ.items():
            if k.startswith(prefix):
                params[k[len(prefix):]] = v
        return params

    def start_oidc(self) -> None:
        """The Google stand-in (local_runtime/oidc.py) with the internships client registered; the
        client secret reaches the service as its local plain-variable override."""
        if "internships" not in self.services or os.environ.get("LOCAL_OIDC", "1") == "0":
            return
        from .oidc import OidcProvider

        self.oidc = OidcProvider(self.host, env_int("LOCAL_OIDC_PORT", 9400))
        base = self.params_for(list(self.services).index("internships"), "internships")["PublicBaseUrl"]
        self._oidc_client_id, secret = self.oidc.register_client([base.rstrip("/") + "/api/auth/google/callback"])
        os.environ["INTERNSHIPS_GOOGLE_CLIENT_SECRET"] = secret

    def provision_all(self) -> None:
        clients = Clients()
        for i, (name, svc) in enumerate(self.services.items()):
            self.envs[name] = provision(svc, self.params_for(i, name), clients=clients)
            export_env(svc, self.envs[name])
            if os.environ.get("LOCAL_RATE_LIMITS", "").strip().lower() == "off":
                # `make dev RATE_LIMITS=off`: read by the settings model, honoured under Stage=local only
                os.environ[f"{name.upper()}_LOCAL_RATE_LIMITS"] = "off"
        inv.ensure_paths(code_dirs=[s.dir for s in self.services.values()])

    def start_fronts(self) -> None:
        from .openapi import service_document

        for i, (name, svc) in enumerate(self.services.items()):
            port = self.front_port(i, name)
            cors = CorsConfig.of(svc, self.envs[name].resolve) if name in self.envs else None
            pages = None
            if name == "internships":
                from .pages import Pages

                pages = Pages(self.invoke, svc).handle
            front = Front(svc, self.host, port, self.invoke, _document_of(svc, service_document),
                          cors=cors, pages=pages)
            front.start()
            self.fronts[name] = front

    def seed(self) -> None:
        self.dev = {"aws": {"endpoint_url": self.endpoint, "region": REGION}}
        for name in self.services:
            block: dict[str, Any] = {"base_url": f"http://{self.host}:{self.fronts[name].port}"}
            module = f"{name}.devseed"
            try:
                found = importlib.util.find_spec(module) is not None
            except ModuleNotFoundError:
                found = False
            if found:
                try:
                    extra = importlib.import_module(module).seed()
                    block.update(extra or {})
                except Exception:  # noqa: BLE001 - the service still runs; say why it has no credentials
                    log.exception("%s: devseed failed; its credentials are missing from dev.json", name)
            cors = self.fronts[name].cors  # after base_url and the devseed fields (dev.json only grows)
            block["cors_origins"] = list(cors.allow_origins) if cors is not None else []
            if name == "internships" and self.oidc is not None:
                from .oidc import dev_info

                block["google"] = dev_info(self.oidc, self._oidc_client_id, block["base_url"])
            self.dev[name] = block
        self.dev_json.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.dev_json.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.dev, indent=2) + "\n")
        tmp.replace(self.dev_json)
        (self.dev_json.parent / "runtime.json").write_text(json.dumps(
            {"control_url": f"http://127.0.0.1:{self.control_port}", "pid": os.getpid()}) + "\n")

    def start_event_sources(self) -> None:
        clients = Clients()
        for name, svc in self.services.items():
            env = self.envs[name]
            for fn in svc.functions.values():
                for src in event_sources(fn, env.resolve, env.queue_url_by_arn):
                    if src.enabled:
                        p = Poller(src, clients("sqs"), self.invoke, self.stopping)
                        p.start()
                        self.pollers.append(p)
                for s in schedules_of(fn):
                    self.schedules.append((svc, s))
        t = threading.Thread(target=self._scheduler, name="scheduler", daemon=True)
        t.start()
        self._threads.append(t)

    def _scheduler(self) -> None:
        """Fire due schedules once per (possibly compressed) minute."""
        origin = dt.datetime.now(dt.timezone.utc).replace(second=0, microsecond=0)
        for _, s in self.schedules:
            s.start = origin
        started = time.monotonic()
        tick = 0
        while not self.stopping.is_set():
            tick += 1
            wake = started + tick * self.minute_seconds
            if self.stopping.wait(max(0.0, wake - time.monotonic())):
                return
            minute = origin + dt.timedelta(minutes=tick)
            for svc, s in self.schedules:
                if s.due(minute):
                    fn = svc.functions[s.function]
                    threading.Thread(target=self._fire, args=(fn, s, minute), daemon=True).start()

    def _fire(self, fn: Function, s: Schedule, minute: dt.datetime) -> None:
        try:
            self.invoke(fn, s.event(minute))
            log.info("schedule %s.%s fired (%s)", fn.logical_id, s.name, fn.service)
        except ModuleNotFoundError as exc:
            key = f"{fn.service}.{fn.logical_id}"
            if key not in self._missing:
                self._missing.add(key)
                log.warning("schedule %s.%s: handler %s not implemented yet (%s)", key, s.name, fn.handler, exc)
        except Exception:  # noqa: BLE001
            log.exception("schedule %s.%s failed", fn.logical_id, s.name)

    def start_control(self) -> None:
        rt = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, fmt: str, *args: Any) -> None:
                pass

            def _reply(self, status: int, body: Any) -> None:
                data = json.dumps(body, default=str).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:  # noqa: N802
                self._reply(200, {"services": {n: f.port for n, f in rt.fronts.items()}, "dev": rt.dev})

            def do_POST(self) -> None:  # noqa: N802
                if self.path != "/invoke":
                    return self._reply(404, {"error": "not found"})
                req = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
                try:
                    svc, fn = rt.find_function(req["function"], req.get("service"))
                except KeyError as exc:
                    return self._reply(404, {"error": str(exc.args[0])})
                event = req["event"] if req.get("event") is not None else rt.default_event(svc, fn)
                try:
                    result = rt.invoke(fn, event)
                except Exception as exc:  # noqa: BLE001
                    log.exception("invoke %s", fn.logical_id)
                    return self._reply(500, {"service": svc.name, "function": fn.logical_id,
                                             "error": f"{type(exc).__name__}: {exc}"})
                self._reply(200, {"service": svc.name, "function": fn.logical_id, "result": result})

        self._control = ThreadingHTTPServer(("127.0.0.1", self.control_port), Handler)
        self._control.daemon_threads = True
        t = threading.Thread(target=self._control.serve_forever, name="control", daemon=True)
        t.start()

    def start(self) -> None:
        t0 = time.monotonic()
        self.start_emulator()
        self.start_oidc()
        self.provision_all()
        self.start_fronts()
        self.start_control()
        self.seed()
        self.start_event_sources()
        self.banner(time.monotonic() - t0)

    def banner(self, took: float) -> None:
        lines = [f"Local runtime ready in {took:.1f}s (Ctrl-C stops everything).",
                 f"  AWS emulator (moto): {self.endpoint}"]
        for name, f in self.fronts.items():
            lines.append(f"  {name:<12} http://{self.host}:{f.port}   docs: http://{self.host}:{f.port}/docs")
        if self.oidc is not None:
            lines.append(f"  Google stand-in (OpenID provider): {self.oidc.issuer}   sign in: see internships.google")
        lines.append(f"  {len(self.pollers)} queue consumers, {len(self.schedules)} schedules; "
                     f"fire one now: make invoke FN=<LogicalId> [SVC=<service>]")
        lines.append(f"  Credentials: {self.dev_json}")
        print("\n".join(lines), flush=True)
        print(json.dumps(self.dev, indent=2), flush=True)

    def stop(self) -> None:
        self.stopping.set()
        for f in self.fronts.values():
            f.stop()
        if self._control is not None:
            self._control.shutdown()
            self._control.server_close()
        for p in self.pollers:
            p.join(timeout=3)
        if self.oidc is not None:
            self.oidc.stop()
        if self._moto is not None:
            self._moto.stop()


def _document_of(svc: Service, make: Any) -> Any:
    return lambda: make(svc)


def main() -> None:
    logging.basicConfig(level=os.environ.get("LOCAL_LOG_LEVEL", "INFO"),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    for noisy in ("werkzeug", "botocore", "urllib3"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    root = os.environ.get("LOCAL_ROOT_TEMPLATE")
    rt = Runtime(Path(root) if root else None)
    done = threading.Event()

    def on_signal(signum: int, _frame: Any) -> None:
        done.set()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    try:
        rt.start()
    except OSError as exc:
        print(f"local runtime: cannot start: {exc} (is another `make dev` running? ports are set by "
              "LOCAL_<SERVICE>_PORT / LOCAL_EMULATOR_PORT / LOCAL_CONTROL_PORT)", file=sys.stderr)
        rt.stop()
        sys.exit(1)
    done.wait()
    print("Stopping...", flush=True)
    rt.stop()
    print("Stopped.", flush=True)


if __name__ == "__main__":
    main()
