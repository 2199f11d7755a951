"""A key may only create keys no wider than itself, on every axis (pure rules, no I/O).

Axes and what "no wider" means (``violations`` names each axis that is wider):

- ``scopes``: the child's *capabilities* are a subset of the parent's. Capabilities are the
  scopes plus the ``<resource>:delete`` rights they imply (an explicit-scope key deletes with
  write, a role key only when its role has D), so a Manager-role key cannot mint a scope key
  that deletes.
- ``plan``: standard < pro < enterprise; the child's plan is not above the parent's.
- ``rate_limit``: every limit the parent is held to (its plan limit, and its own
  ``rate_limit`` restriction for standard/pro) is matched by a child limit that is no looser:
  ``n_c <= n_p`` (no bigger burst in one window) and ``n_c / w_c <= n_p / w_p`` (no higher rate).
- ``ip_whitelist``: when the parent has one, the child has one and each of its networks lies
  inside one of the parent's networks (same IP version).
- ``expires_at``: when the parent expires, the child expires no later.

A parent without a restriction on an axis (no allow-list, no expiry) leaves that axis free.
"""
from __future__ import annotations

import ipaddress

from lambdakit import clock

from .models import PLANS, parse_rate_limit
from .scopes import RESOURCES, allows

Limit = tuple[int, int]  # (count, window seconds)


def capabilities(scopes: frozenset[str] | set[str], role: str | None) -> set[str]:
    caps = set(scopes)
    caps |= {f"{r}:delete" for r in RESOURCES if allows(frozenset(scopes), role, f"{r}:delete")}
    return caps


def limits(plan: str, restrictions: dict, plan_limit) -> list[Limit]:
    """Every limit a key is held to (``plan_limit(record) -> Limit`` gives the plan's)."""
    out = [plan_limit({"plan": plan, "restrictions": restrictions})]
    rl = restrictions.get("rate_limit")
    if rl and plan != "enterprise":
        out.append(parse_rate_limit(rl))
    return out


def _within(child: Limit, parent: Limit) -> bool:
    (nc, wc), (np_, wp) = child, parent
    return nc <= np_ and nc * wp <= np_ * wc


def _nets_within(child: list[str], parent: list[str]) -> bool:
    pnets = [ipaddress.ip_network(p, strict=False) for p in parent]
    for c in child:
        cn = ipaddress.ip_network(c, strict=False)
        if not any(cn.version == pn.version and cn.subnet_of(pn) for pn in pnets):  # type: ignore[arg-type]
            return False
    return True


def violations(parent: dict, child: dict, plan_limit) -> dict[str, str]:
    """Axes on which ``child`` would be wider than ``parent``; both are ``{scopes, role, plan,
    restrictions}`` (restrictions: ``rate_limit``, ``ip_whitelist``, ``expires_at``)."""
    out: dict[str, str] = {}
    pr, cr = parent.get("restrictions") or {}, child.get("restrictions") or {}
    extra = capabilities(set(child["scopes"]), child.get("role")) - capabilities(set(parent["scopes"]),
                                                                                 parent.get("role"))
    if extra:
        out["scopes"] = f"grants {', '.join(sorted(extra))}, which this key does not hold"
    if PLANS.index(child["plan"]) > PLANS.index(parent["plan"]):
        out["plan"] = f"plan {child['plan']} is above this key's plan {parent['plan']}"
    plimits = limits(parent["plan"], pr, plan_limit)
    climits = limits(child["plan"], cr, plan_limit)
    if not all(any(_within(c, p) for c in climits) for p in plimits):
        shown = ", ".join(f"{n}/{ {60: 'minute', 3600: 'hour', 86400: 'day'}[w] }" for n, w in plimits)
        out["rate_limit"] = f"must be no looser than this key's limit(s): {shown}"
    if pr.get("ip_whitelist"):
        if not cr.get("ip_whitelist"):
            out["ip_whitelist"] = "required: this key is limited to " + ", ".join(pr["ip_whitelist"])
        elif not _nets_within(cr["ip_whitelist"], pr["ip_whitelist"]):
            out["ip_whitelist"] = "every range must lie inside this key's: " + ", ".join(pr["ip_whitelist"])
    if pr.get("expires_at"):
        if not cr.get("expires_at"):
            out["expires_at"] = f"required: this key expires at {pr['expires_at']}"
        elif clock.parse_iso(cr["expires_at"]) > clock.parse_iso(pr["expires_at"]):
            out["expires_at"] = f"must not be later than this key's expiry {pr['expires_at']}"
    return out
