"""The public view of a template (``TemplateOut``), apart from the request bodies (``models``, which
re-exports it): the read routes validate their answers with it without defining the bodies (issue 21)."""
from __future__ import annotations

from ..common.view import View


class TemplateOut(View):
    id: str
    name: str
    subject: str
    content: str
    type: str
    category: str
    variables: list[str]
    preview_url: str | None = None
    created_at: str
    updated_at: str
