"""Admin user management (super_admin only by default: permission ``manage_users``),
users-list (``view_users``), students (``view_students``) and fix-google-avatars."""
from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import quote

from lambdakit import clock
from lambdakit.errors import BadRequest, NotFound, ValidationFailed

from .. import activity
from . import repository as repo

STAFF_ROLES = ("admin", "super_admin", "project_admin", "reviewer")
ALL_ROLES = ("student",) + STAFF_ROLES
HIDDEN = ("password_hash", "google_sub", "search_text", "type")
PROFILE_FIELDS = ("name", "phone", "college", "degree", "branch", "year_of_study", "graduation_year", "birthday",
                  "gender", "city", "state", "country", "linkedin_url", "github_url", "avatar_url")


def public(user: dict) -> dict:
    return {k: v for k, v in user.items() if k not in HIDDEN}


def _get(user_id: str) -> dict:
    u = repo.get_user(user_id)
    if not u:
        raise NotFound("User not found")
    return u


def list_total_keys(role: str | None, search: str | None) -> list[tuple[str, str]]:
    """The key of the item ``list_users`` reads its total from (none: a search counts by query, an
    unknown role is refused), for ``auth.Reads``."""
    if search or (role and role not in ALL_ROLES):
        return []
    return [repo.users_counter_key(role)]


def list_users(*, role: str | None, search: str | None, offset: int, limit: int, cursor: str | None,
               read: Mapping | None = None):
    """``read``: items read with authentication (``auth.read_with_auth``), the total's counter among them."""
    if role and role not in ALL_ROLES:
        raise ValidationFailed(f"role must be one of {', '.join(ALL_ROLES)}", fields={"role": "Unknown role"})
    items, nxt = repo.list_users(role=role, search=search, offset=offset, limit=limit, cursor=cursor)
    total, exact = repo.count_users(role=role, search=search, read=read)
    return [public(u) for u in items], total, exact, nxt


def get(user_id: str) -> dict:
    return public(_get(user_id))


def create(admin_id: str, data: dict) -> dict:
    from ..accounts import service as accounts

    fields = {k: v for k, v in data.items() if v is not None and k in PROFILE_FIELDS and k not in ("name", "phone")}
    user = accounts.create_user(email=data["email"], password=data["password"], name=data["name"],
                                role=data["role"], phone=data.get("phone"), **fields)
    activity.record(admin_id, "user.create", "user", user["id"], after=public(user))
    return public(user)


def update(admin_id: str, user_id: str, changes: dict) -> dict:
    before = _get(user_id)
    if not changes:
        return public(before)
    if changes.get("disabled") is True and user_id == admin_id:
        raise BadRequest("You cannot disable your own account")
    sets = {k: v for k, v in changes.items() if v is not None}
    removes = [k for k, v in changes.items() if v is None and k not in ("name", "disabled")]
    sets["updated_at"] = clock.now_iso()
    try:
        after = repo.update_user(user_id, sets, removes)
    except repo.NotFoundUser:
        raise NotFound("User not found") from None
    activity.record(admin_id, "user.update", "user", user_id,
                    before={k: before.get(k) for k in changes}, after={k: after.get(k) for k in changes})
    return public(after)


def set_role(admin_id: str, user_id: str, role: str) -> dict:
    if role not in ALL_ROLES:
        raise ValidationFailed(f"role must be one of {', '.join(ALL_ROLES)}", fields={"role": "Unknown role"})
    user = _get(user_id)
    if user_id == admin_id and role != user["role"]:
        raise BadRequest("You cannot change your own role")
    if user["role"] == role:
        return public(user)
    try:
        repo.change_role(user, role, clock.now_iso())
    except repo.LastSuperAdmin:
        raise BadRequest("The last super_admin cannot be demoted") from None
    activity.record(admin_id, "user.role_change", "user", user_id, before={"role": user["role"]},
                    after={"role": role})
    return public(_get(user_id))


def delete(admin_id: str, user_id: str) -> None:
    if user_id == admin_id:
        raise BadRequest("You cannot delete your own account")
    user = _get(user_id)
    try:
        repo.delete_user(user)
    except repo.LastSuperAdmin:
        raise BadRequest("The last super_admin cannot be deleted") from None
    activity.record(admin_id, "user.delete", "user", user_id, before=public(user))


def users_list(*, role: str | None, search: str | None, offset: int, limit: int, cursor: str | None):
    """Each user as ``models.UserBrief`` (every field present, ``null`` when unknown)."""
    from lambdakit.model import dump

    from .models import UserBrief

    items, total, exact, nxt = list_users(role=role, search=search, offset=offset, limit=limit, cursor=cursor)
    return [dump(UserBrief, u) for u in items], total, exact, nxt


def students(*, search: str | None, offset: int, limit: int, cursor: str | None):
    """Each student as ``models.StudentBrief`` (every field present, ``null`` when unknown)."""
    from lambdakit.model import dump

    from .models import StudentBrief

    items, total, exact, nxt = list_users(role="student", search=search, offset=offset, limit=limit, cursor=cursor)
    return [dump(StudentBrief, u) for u in items], total, exact, nxt


# ---------------------------------------------------------------- google avatars
GOOGLE_HOST_MARK = "googleusercontent.com"


def proxied(url: str) -> str:
    return "/api/proxy-image?url=" + quote(url, safe="")


def fix_google_avatars(admin_id: str, *, dry_run: bool = False, limit: int = 1000) -> dict:
    """Rewrite ``avatar_url`` values pointing at Google's image host to ``/api/proxy-image?url=...``.
    Idempotent (already proxied URLs no longer match) and safe under concurrency (each rewrite is
    conditional on the value read). Bounded to ``limit`` users per call; ``remaining`` says more exist."""
    scanned = fixed = 0
    changed: list[str] = []
    now = clock.now_iso()
    remaining = False
    for u in repo.iter_google_avatar_users():
        url = u.get("avatar_url") or ""
        if not url.startswith(("http://", "https://")) or GOOGLE_HOST_MARK not in url.split("/")[2]:
            continue
        if fixed >= limit:
            remaining = True
            break
        scanned += 1
        if dry_run:
            fixed += 1
            continue
        if repo.set_avatar_if_unchanged(u["id"], url, proxied(url), now):
            fixed += 1
            changed.append(u["id"])
    if changed:
        activity.record(admin_id, "user.fix_google_avatars", "user", "bulk",
                        after={"updated": len(changed), "user_ids": changed[:100]})
    return {"matched": scanned, "updated": 0 if dry_run else fixed, "dryRun": dry_run, "remaining": remaining}
