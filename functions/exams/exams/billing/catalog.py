"""The plan and package catalogue (fixed by the spec and the issue)."""
from __future__ import annotations

from dataclasses import dataclass

ALL_FEATURES = frozenset({"analytics", "branding", "csv", "xlsx", "advanced_proctoring", "camera_proctoring"})


@dataclass(frozen=True)
class Plan:
    id: str
    name: str
    price_inr: int | None  # None = custom pricing
    exams_per_month: int | None  # None = unlimited
    students_per_exam: int | None
    questions_per_exam: int | None
    features: frozenset[str]

    @property
    def expires(self) -> bool:
        return self.id != "free"

    def to_dict(self) -> dict:
        return {"id": self.id, "name": self.name, "price_inr": self.price_inr,
                "exams_per_month": self.exams_per_month, "students_per_exam": self.students_per_exam,
                "questions_per_exam": self.questions_per_exam, "features": sorted(self.features)}


@dataclass(frozen=True)
class Package:
    type: str
    name: str
    price_inr: int
    max_questions: int
    max_candidates: int
    features: frozenset[str]

    def to_dict(self) -> dict:
        return {"package_type": self.type, "name": self.name, "price_inr": self.price_inr,
                "max_questions": self.max_questions, "max_candidates": self.max_candidates,
                "features": sorted(self.features)}


PLANS: dict[str, Plan] = {
    "free": Plan("free", "Free", 0, 3, 20, 50, frozenset({"analytics"})),
    "starter": Plan("starter", "Starter", 1999, 25, 100, 100, ALL_FEATURES - {"camera_proctoring"}),
    "growth": Plan("growth", "Growth", 3999, 50, 250, 200, ALL_FEATURES),
    "enterprise": Plan("enterprise", "Enterprise", None, None, None, None, ALL_FEATURES),
}
PLAN_IDS = tuple(PLANS)

_BASE = frozenset({"analytics", "branding"})
_BASIC = _BASE | {"csv", "xlsx", "advanced_proctoring"}
_STANDARD = _BASIC | {"camera_proctoring"}

PACKAGES: dict[str, Package] = {
    "base": Package("base", "Base", 99, 50, 50, _BASE),
    "basic": Package("basic", "Basic", 199, 50, 50, _BASIC),
    "standard": Package("standard", "Standard", 399, 50, 50, _STANDARD),
    "professional": Package("professional", "Professional", 499, 100, 100, ALL_FEATURES),
    "placement_drive": Package("placement_drive", "Placement Drive", 1499, 200, 500, ALL_FEATURES),
}
PACKAGE_TYPES = tuple(PACKAGES)
