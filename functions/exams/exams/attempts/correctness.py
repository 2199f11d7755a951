"""Who may see correctness, and the attempt as seen without it (issue 32 item 1).

One decision, ``may_see_correctness(p, test)``: admins (super admin, the tenant's client admin)
always; a student or guest only once the test shows results (``show_results_after_submission``)
or an admin has published them (``result_status == "published"``).

Every view of an attempt (the attempt JSON of start, submit, read and lists; the XLSX report) is
built from ``projection(a, visible)``: when the decision says no, the attempt without any field
that depends on correctness, so no view can leak what it never receives. What is left: the
paper, the candidate's own answers, times, status, total marks, risk score, pending manual count.
The report does not read the answer key or the item statistics at all then (``reports.service``).
"""
from __future__ import annotations

from typing import Any

from ..identity import Principal

#: Attempt fields derived from the answer key: the score and everything computed from it, and the
#: per-question results (status, marks awarded, the correct answer of each question).
CORRECTNESS_FIELDS = frozenset({"score", "raw_score", "percentage", "passed", "counted_passed", "results",
                                "manual_marks"})


def is_admin(p: Principal | None) -> bool:
    return p is not None and (p.is_super_admin or p.is_client_admin)


def may_see_correctness(p: Principal | None, test: dict | None) -> bool:
    """May this requester see correctness for an attempt of ``test``? (The one decision.)"""
    if is_admin(p):
        return True
    if not test:
        return False
    return bool(test.get("show_results_after_submission")) or test.get("result_status") == "published"


def projection(a: dict[str, Any], visible: bool) -> dict[str, Any]:
    """The attempt as a view may use it: whole when ``visible``, else without ``CORRECTNESS_FIELDS``."""
    if visible:
        return a
    return {k: v for k, v in a.items() if k not in CORRECTNESS_FIELDS}
