from __future__ import annotations

from pydantic import ConfigDict

from lambdakit.model import Model


class ApproveEnrollment(Model):
    model_config = ConfigDict(extra="ignore")

    force: bool = False


# ---------------------------------------------------------------- OpenAPI: responses (round 2)
from ..admin_common.schemas import Ok, Open  # noqa: E402


class MilestoneView(Open):
    id: str
    enrollmentId: str
    order: int
    title: str
    status: str
    locked: bool


class MilestoneOut(Ok):
    milestone: MilestoneView
    message: str | None = None


class ApproveOut(Ok):
    message: str
    certificateId: str
    certificate: dict
