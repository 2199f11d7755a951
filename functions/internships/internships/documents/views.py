"""The caller's certificate list: apart from ``service`` so that the list route imports neither the
outbox, the invoice rules nor the accounts repository its other routes need (a cold first request,
issue #21)."""
from __future__ import annotations

from . import certificates
from . import repository as repo


def my_certificates(p) -> list[dict]:
    return [certificates.owner_view(c) for c in repo.certificates_for_user(p.user_id)]
