"""Users and profiles: creation (identity account + profile + role, undone on failure),
listing (tenant-restricted) and updates (only a super admin changes a role or a client)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from lambdakit import clock
from lambdakit.errors import ApiError, ValidationFailed
from lambdakit.observability import get_logger
from lambdakit.pagination import PageRequest, page_meta

from ..audit import writer as audit
from ..identity import (
    CLIENT_ADMIN,
    STUDENT,
    SUPER_ADMIN,
    Principal,
    ensure_object_tenant,
    ensure_same_tenant,
    ensure_self,
)
from ..identity.policy import role_error
from ..stats import counters
from . import repository as repo
from .views import Profile

if TYPE_CHECKING:
    from .models import CreateUser, UpdateProfile

logger = get_logger("exams")

ROLE_COUNTER = {STUDENT: "students", CLIENT_ADMIN: "client_admins", SUPER_ADMIN: "super_admins"}


def public(p: dict) -> dict:
    return Profile.model_validate(p).model_dump()


def _require_client(client_id: str) -> None:
    from ..billing import repository as billing_repo  # only the writes that set a client

    client = billing_repo.get_client(client_id)
    if not client:
        raise ApiError("Client not found", code="CLIENT_NOT_FOUND", status=404,
                       details={"resource_type": "client", "resource_id": client_id})
    if int(client.get("active_status", 1)) != 1:
        raise ApiError("The client is inactive", code="FORBIDDEN", status=403)


def create_user(actor: Principal, body: CreateUser) -> dict:
    client_id = body.client_id
    if actor.is_client_admin:
        client_id = client_id or actor.client_id
        ensure_same_tenant(actor, client_id)
        if body.role == SUPER_ADMIN:
            raise role_error([SUPER_ADMIN], actor.role)
    elif not actor.is_super_admin:
        raise role_error([SUPER_ADMIN, CLIENT_ADMIN], actor.role)
    if body.role == SUPER_ADMIN:
        client_id = None
    elif not client_id:
        from lambdakit.errors import ValidationFailed

        raise ValidationFailed("client_id is required for this role", fields={"client_id": "Field required"})
    if client_id:
        _require_client(client_id)

    uid = repo.create_identity(body.email, body.name)
    try:
        repo.set_password(body.email, body.password)
        now = clock.now_iso()
        profile = {"id": uid, "email": body.email, "name": body.name, "role": body.role, "client_id": client_id,
                   "active_status": 1, "created_at": now, "updated_at": now, "created_by": actor.user_id}
        repo.put_profile(profile, counters.ops(client_id, **{ROLE_COUNTER[body.role]: 1}))
    except Exception:
        # undo the identity account: nothing stays half-created
        try:
            repo.delete_identity(body.email)
        except Exception:  # noqa: BLE001
            logger.exception("could not undo identity account after a failed create-user")
        raise
    audit.record("user.create", "user", uid, user_id=actor.user_id, client_id=client_id,
                 metadata={"after": {"email": body.email, "name": body.name, "role": body.role,
                                     "client_id": client_id}})
    return {"id": uid, "email": body.email, "name": body.name, "role": body.role, "client_id": client_id}


def list_profiles(actor: Principal, client_id: str | None, role: str | None, req: PageRequest, *,
                  have: Mapping[tuple[str, str], dict | None] | None = None) -> tuple[list, dict]:
    """``have``: items read with authentication (``identity.reads``): the counters when there."""
    if role is not None and role not in ROLE_COUNTER:
        raise ValidationFailed("Invalid role filter", fields={"role": f"Must be one of {', '.join(ROLE_COUNTER)}"})
    if actor.is_student:
        ensure_same_tenant(actor, client_id)
        me = repo.get_profile(actor.user_id)
        items = [public(me)] if me and (role in (None, me["role"])) and req.page == 1 else []
        return items, page_meta(req, 1 if me and role in (None, me["role"]) else 0)
    if actor.is_client_admin:
        ensure_same_tenant(actor, client_id)
        client_id = actor.client_id
    stats = counters.read(client_id, have=have)
    names = [ROLE_COUNTER[role]] if role else (["students", "client_admins"] if client_id else list(ROLE_COUNTER.values()))
    total = sum(int(stats.get(n, 0)) for n in names)
    items = [public(p) for p in repo.list_profiles(client_id, req, role)]
    return items, page_meta(req, total)


def update_profile(actor: Principal, profile_id: str, body: UpdateProfile) -> dict:
    current = repo.get_profile(profile_id)
    if not current:
        raise ApiError("Profile not found", code="NOT_FOUND", status=404,
                       details={"resource_type": "profile", "resource_id": profile_id})
    changes = body.model_dump(exclude_unset=True)
    if actor.is_student:
        ensure_self(actor, profile_id)
    elif actor.is_client_admin:
        ensure_object_tenant(actor, current.get("client_id"))
    if ("role" in changes and changes["role"] != current["role"]) or \
            ("client_id" in changes and changes["client_id"] != current.get("client_id")):
        if not actor.is_super_admin:
            raise ApiError("Only a super admin may change a role or a client", code="INSUFFICIENT_PRIVILEGES",
                           status=403)
    if actor.user_id == profile_id and (
            ("role" in changes and changes["role"] != current["role"])
            or ("client_id" in changes and changes["client_id"] != current.get("client_id"))):
        # no self-demotion: the last super admin could lock everyone out (fuzz: the fuzzer's own
        # super admin demoted itself, then met the maintenance mode it had switched on)
        raise ApiError("You cannot change your own role or client", code="FORBIDDEN", status=403)
    if "active_status" in changes and changes["active_status"] != current.get("active_status", 1):
        if actor.is_student or actor.user_id == profile_id:
            raise ApiError("You cannot change your own account status", code="FORBIDDEN", status=403)
    new = {**current, **{k: v for k, v in changes.items()}}
    for k in ("pk", "sk", "gsi1pk", "gsi1sk", "gsi2pk", "gsi2sk"):
        new.pop(k, None)
    if new["role"] == SUPER_ADMIN:
        new["client_id"] = None
    elif not new.get("client_id"):
        from lambdakit.errors import ValidationFailed

        raise ValidationFailed("client_id is required for this role", fields={"client_id": "Field required"})
    if new.get("client_id") != current.get("client_id") and new.get("client_id"):
        _require_client(new["client_id"])
    new["updated_at"] = clock.now_iso()
    ops: list[dict] = []
    if new["role"] != current["role"] or new.get("client_id") != current.get("client_id"):
        ops += counters.ops(current.get("client_id"), **{ROLE_COUNTER[current["role"]]: -1})
        ops += counters.ops(new.get("client_id"), **{ROLE_COUNTER[new["role"]]: 1})
    repo.replace_profile(current, new, counters.merge(ops))
    before = {k: current.get(k) for k in changes}
    after = {k: new.get(k) for k in changes}
    audit.record("profile.update", "profile", profile_id, user_id=actor.user_id, client_id=new.get("client_id"),
                 metadata={"before": before, "after": after})
    return public(new)

