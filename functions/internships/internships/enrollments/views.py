"""The student's view of an enrollment and the my-enrollments list: apart from ``service`` so that the
list route imports neither the payment gateway nor the coupons, invoices and outbox its rules need
(a cold first request of the read route, issue #21)."""
from __future__ import annotations

from . import repository as repo


def view(e: dict) -> dict:
    """The student's view of the stored enrollment ``e``: ``models.EnrollmentView``, whose fields name the
    storage attributes they show (every field present, ``null`` until a state sets it)."""
    from lambdakit.model import dump

    from .models import EnrollmentView  # lazily: the models are built on first use

    return dump(EnrollmentView, e)


def created(e: dict, order: dict | None) -> dict:
    """The answer of ``create``: the view and the checkout ``order`` (``models.Order``, ``null`` when free)."""
    from lambdakit.model import dump

    from .models import Enrollment

    return dump(Enrollment, {**e, "order": order})


def my_enrollments(p) -> list[dict]:
    return [view(e) for e in repo.list_for_user(p.user_id)]
