"""The application as the templates declare it: services, resources, functions, routes."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from . import cfn

ROOT = Path(__file__).resolve().parent.parent
ACCOUNT = "123456789012"
REGION = "us-east-1"


@dataclass
class Route:
    method: str
    path: str
    function: str  # logical id
    regex: re.Pattern = field(repr=False, default=None)  # type: ignore[assignment,arg-type]
    params: list[str] = field(default_factory=list)
    #: For an alias twin (``<prefix><path>``, the template's ``Metadata.RouteAliasPrefixes``): the
    #: authoritative unprefixed path it mirrors; ``None`` for an ordinary route.
    alias_of: str | None = None

    def __post_init__(self) -> None:
        parts, self.params = [], []
        for seg in self.path.strip("/").split("/") if self.path != "/" else []:
            m = re.fullmatch(r"\{([^}+]+)(\+?)\}", seg)
            if m:
                self.params.append(m.group(1))
                parts.append("(?P<%s>.+)" % m.group(1) if m.group(2) else "(?P<%s>[^/]+)" % m.group(1))
            else:
                parts.append(re.escape(seg))
        self.regex = re.compile("^/" + "/".join(parts) + "$")

    @property
    def route_key(self) -> str:
        """API Gateway's route key (what the event's ``routeKey`` carries)."""
        return f"{self.method} {self.path}"

    @property
    def canonical_key(self) -> str:
        """The route key of the authoritative route: an alias twin's unprefixed one (labels such
        as the cost log's ``route`` use it, so the two forms do not split)."""
        return f"{self.method} {self.alias_of or self.path}"

    @property
    def specificity(self) -> tuple[int, int]:
        segs = self.path.strip("/").split("/")
        return (sum(1 for s in segs if not s.startswith("{")), len(segs))


@dataclass
class Function:
    service: str
    logical_id: str
    handler: str
    code_dir: Path
    timeout: int
    memory: int
    env_raw: dict
    events: dict
    properties: dict
    #: logical ids of its layers, in order: the Globals' then its own (SAM concatenates the lists)
    layers: list[str] = field(default_factory=list)


@dataclass
class Service:
    name: str
    dir: Path
    template: dict
    functions: dict[str, Function]
    routes: list[Route]
    #: ``Metadata.RouteAliasPrefixes`` of the template: every route is also declared under each
    #: (``tools/route_aliases.py``); the function's resolver strips the prefix.
    alias_prefixes: list[str] = field(default_factory=list)

    @property
    def canonical_routes(self) -> list[Route]:
        """The routes without their alias twins (what docs, tables and checks enumerate)."""
        return [r for r in self.routes if r.alias_of is None]

    def resources_of(self, *types: str) -> dict[str, dict]:
        return {k: v for k, v in self.template.get("Resources", {}).items() if v.get("Type") in types}

    def dead_letter_queues(self) -> dict[str, list[str]]:
        """Every dead-letter queue of the template: ``{queue logical id: [what dead-letters into it]}``.

        Sources are queue logical ids (``RedrivePolicy``), ``<Function>.<Event>`` for a SAM
        schedule's ``DeadLetterConfig`` and ``<Rule>`` for an ``AWS::Events::Rule`` target's."""
        out: dict[str, list[str]] = {}
        for lid, res in self.resources_of("AWS::SQS::Queue").items():
            target = _getatt_arn(((res.get("Properties") or {}).get("RedrivePolicy") or {}).get("deadLetterTargetArn"))
            if target:
                out.setdefault(target, []).append(lid)
        for fn in self.functions.values():
            for ev_name, ev in fn.events.items():
                target = _getatt_arn(((ev.get("Properties") or {}).get("DeadLetterConfig") or {}).get("Arn"))
                if target:
                    out.setdefault(target, []).append(f"{fn.logical_id}.{ev_name}")
        for lid, res in self.resources_of("AWS::Events::Rule").items():
            for t in (res.get("Properties") or {}).get("Targets") or []:
                target = _getatt_arn((t.get("DeadLetterConfig") or {}).get("Arn"))
                if target:
                    out.setdefault(target, []).append(lid)
        return out

    def match(self, method: str, path: str) -> tuple[Route, dict[str, str]] | None:
        for r in self.routes:
            if r.method not in (method, "ANY"):
                continue
            m = r.regex.match(path)
            if m:
                return r, {k: v for k, v in m.groupdict().items()}
        return None


def _getatt_arn(value: object) -> str | None:
    """``X`` of ``!GetAtt X.Arn`` (else None)."""
    if isinstance(value, dict) and isinstance(value.get("Fn::GetAtt"), list) and value["Fn::GetAtt"][1:] == ["Arn"]:
        return str(value["Fn::GetAtt"][0])
    return None


def _ref(value: object) -> str:
    """``X`` of ``!Ref X`` (a layer of the template); anything else (an ARN) as text."""
    return str(value["Ref"]) if isinstance(value, dict) and "Ref" in value else str(value)


def load_root(path: Path | None = None) -> dict:
    return cfn.load(path or ROOT / "template.yaml")


def service_dirs(root_template: dict | None = None, base: Path = ROOT) -> dict[str, Path]:
    """Nested applications of the root template: ``{service: dir}``, keyed by folder name."""
    t = root_template or load_root()
    out: dict[str, Path] = {}
    for _lid, res in t.get("Resources", {}).items():
        if res.get("Type") == "AWS::Serverless::Application":
            loc = res["Properties"]["Location"]
            d = (base / loc).parent.resolve()
            out[d.name] = d
    return out


def load_service(name: str, directory: Path) -> Service:
    t = cfn.load(directory / "template.yaml")
    g = (t.get("Globals") or {}).get("Function") or {}
    aliases = [str(p).rstrip("/") for p in ((t.get("Metadata") or {}).get("RouteAliasPrefixes") or [])]
    functions: dict[str, Function] = {}
    routes: list[Route] = []
    for lid, res in t.get("Resources", {}).items():
        if res.get("Type") != "AWS::Serverless::Function":
            continue
        p = res.get("Properties", {})
        env = {**((g.get("Environment") or {}).get("Variables") or {}),
               **((p.get("Environment") or {}).get("Variables") or {})}
        code_uri = p.get("CodeUri", g.get("CodeUri", "."))
        fn = Function(
            service=name, logical_id=lid, handler=p.get("Handler", g.get("Handler")),
            code_dir=(directory / code_uri).resolve(), timeout=int(p.get("Timeout", g.get("Timeout", 3))),
            memory=int(p.get("MemorySize", g.get("MemorySize", 128))), env_raw=env,
            events=p.get("Events") or {}, properties=p,
            layers=[_ref(x) for x in [*(g.get("Layers") or []), *(p.get("Layers") or [])]],
        )
        functions[lid] = fn
        for ev in fn.events.values():
            if ev.get("Type") == "HttpApi":
                ep = ev.get("Properties") or {}
                path = ep.get("Path", "/$default")
                alias_of = next((path[len(a):] for a in aliases if path.startswith(a + "/")), None)
                routes.append(Route(ep.get("Method", "ANY").upper(), path, lid, alias_of=alias_of))
    routes.sort(key=lambda r: r.specificity, reverse=True)
    return Service(name=name, dir=directory, template=t, functions=functions, routes=routes, alias_prefixes=aliases)


def load_all(root_template: Path | None = None) -> dict[str, Service]:
    """Every service of a root template (default: the repository's ``template.yaml``)."""
    path = Path(root_template or ROOT / "template.yaml").resolve()
    return {n: load_service(n, d) for n, d in service_dirs(load_root(path), path.parent).items()}
