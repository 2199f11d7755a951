"""Fixtures of the fault suite: the service fixtures of the other test directories."""
import pytest

from tests.campaigns.conftest import admin_key, auth_headers, camp, make_key  # noqa: F401
from tests.exams.conftest import exam_users, exams_jwks  # noqa: F401
from tests.exams.delivery.conftest import tenant  # noqa: F401
from tests.internships.admin.conftest import api, sa  # noqa: F401
from tests.internships.conftest import intern_seed, intern_users  # noqa: F401


@pytest.fixture(autouse=True)
def _no_occupancy_net(monkeypatch):
    """The occupancy markers' net queries a partition or two in most minutes (``lambdakit.occupancy.
    with_net``): a clean run and its faulted re-runs in different minutes would make different calls,
    and a fault scheduled at call N of the clean run would land elsewhere. The net's queries are the
    same kind of query as the marked partitions' ones, which every case still makes."""
    from lambdakit import occupancy

    monkeypatch.setattr(occupancy, "net_due", lambda keys, now=None: [])
