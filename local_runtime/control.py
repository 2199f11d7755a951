"""``make invoke FN=<LogicalId> [SVC=<service>] [EVENT=<file.json>]``: fire a function now
in the running ``make dev`` (its schedule's event by default, else ``{}``)."""
from __future__ import annotations

import argparse
import json
import sys
import urllib.error
import urllib.request
from pathlib import Path

from .stack import ROOT


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m local_runtime.control")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("invoke")
    p.add_argument("function", help="logical id, e.g. DispatcherFunction or campaigns.HealthFunction")
    p.add_argument("--service")
    p.add_argument("--event", help="JSON file with the event (default: the function's schedule event)")
    p.add_argument("--runtime-json", default=str(ROOT / ".local" / "runtime.json"))
    args = ap.parse_args(argv)
    if not args.function:
        print("usage: make invoke FN=<LogicalId> [SVC=<service>] [EVENT=file.json]", file=sys.stderr)
        return 2
    try:
        url = json.loads(Path(args.runtime_json).read_text())["control_url"]
    except (OSError, ValueError, KeyError):
        print("The local runtime is not running: start it with `make dev`.", file=sys.stderr)
        return 1
    body = {"function": args.function, "service": args.service,
            "event": json.loads(Path(args.event).read_text()) if args.event else None}
    req = urllib.request.Request(f"{url}/invoke", data=json.dumps(body).encode(),
                                 headers={"content-type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=900) as r:  # noqa: S310 - local control URL
            out = json.loads(r.read())
    except urllib.error.HTTPError as exc:
        out = json.loads(exc.read() or b"{}")
        print(json.dumps(out, indent=2), file=sys.stderr)
        return 1
    except urllib.error.URLError:
        print("The local runtime is not running: start it with `make dev`.", file=sys.stderr)
        return 1
    print(json.dumps(out, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
