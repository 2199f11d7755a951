"""Fixtures of the fault suite: the service fixtures of the other test directories."""
from tests.campaigns.conftest import admin_key, auth_headers, camp, make_key  # noqa: F401
from tests.exams.conftest import exam_users, exams_jwks  # noqa: F401
from tests.exams.delivery.conftest import tenant  # noqa: F401
from tests.internships.admin.conftest import api, sa  # noqa: F401
from tests.internships.conftest import intern_seed, intern_users  # noqa: F401
