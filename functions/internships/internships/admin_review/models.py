from __future__ import annotations

from pydantic import ConfigDict

from lambdakit.model import Model


class ApproveEnrollment(Model):
    model_config = ConfigDict(extra="ignore")

    force: bool = False


# ---------------------------------------------------------------- OpenAPI: responses (round 2)
from ..admin_common.schemas import Ok  # noqa: E402
from ..documents.models import OwnerCertificate  # noqa: E402
from ..learning.models import Milestone  # noqa: E402


class MilestoneOut(Ok):
    """The milestone as its student sees it (``learning.service.view``)."""
    milestone: Milestone
    message: str | None = None


class ApproveOut(Ok):
    message: str
    certificateId: str
    certificate: OwnerCertificate
