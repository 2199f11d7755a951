"""Super admin bootstrap (devseed and first deployments): identity account + profile, idempotent."""
from __future__ import annotations

from lambdakit import clock

from ..identity import SUPER_ADMIN
from ..stats import counters
from . import repository as repo


def ensure_super_admin(email: str, password: str, name: str = "Super Admin") -> str:
    """Create (or re-use) the identity account, set its password, and make sure a super_admin
    profile exists. Returns the user id."""
    from lambdakit.errors import ApiError

    email = email.lower()
    try:
        uid = repo.create_identity(email, name)
    except ApiError as exc:
        if exc.code != "ALREADY_EXISTS":
            raise
        uid = repo.identity_id(email)
    repo.set_password(email, password)
    if not repo.get_profile(uid):
        now = clock.now_iso()
        try:
            repo.put_profile({"id": uid, "email": email, "name": name, "role": SUPER_ADMIN, "client_id": None,
                              "active_status": 1, "created_at": now, "updated_at": now, "created_by": "bootstrap"},
                             counters.ops(None, super_admins=1))
        except ApiError as exc:
            if exc.code != "ALREADY_EXISTS":
                raise
    return uid
