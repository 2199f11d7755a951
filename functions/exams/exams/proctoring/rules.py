"""The spec's proctoring table (pure)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class EventRule:
    severity: str
    score: int
    evidence_required: bool
    feature: str


_BASIC, _CAMERA = "advanced_proctoring", "camera_proctoring"

RULES: dict[str, EventRule] = {
    "TAB_SWITCH": EventRule("LOW", 1, False, _BASIC),
    "WINDOW_BLUR": EventRule("LOW", 1, False, _BASIC),
    "FULLSCREEN_EXIT": EventRule("MEDIUM", 2, False, _BASIC),
    "NO_FACE": EventRule("MEDIUM", 3, True, _CAMERA),
    "MULTIPLE_FACES": EventRule("HIGH", 5, True, _CAMERA),
    "CAMERA_DISCONNECTED": EventRule("HIGH", 5, True, _CAMERA),
    "CAMERA_PERMISSION_DENIED": EventRule("HIGH", 5, False, _CAMERA),
}

EXTENSIONS = {"image/jpeg": "jpg", "image/png": "png", "image/webp": "webp"}
