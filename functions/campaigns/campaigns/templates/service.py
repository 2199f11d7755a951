"""Templates: CRUD and preview. ``variables`` is derived from the placeholders of subject and
content when not given (and re-derived when they change without explicit variables).

``get_template(a, id)`` and ``render_template(template, variables)`` are what the sending
slice uses to render a template-based email.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from lambdakit import clock, ids
from lambdakit.errors import NotFound
from lambdakit.http import parse_model

from ..common.pages import account_page
from . import repository as repo
from .views import TemplateOut

if TYPE_CHECKING:
    from .models import PreviewIn, TemplateIn, TemplatePatch

# Cold start: the read routes load neither the request bodies (``models``) nor the renderer
# (``common.render``); the routes that write or render import them.


def public(item: dict) -> dict:
    return TemplateOut.model_validate(item).model_dump()


def derive_variables(subject: str, content: str) -> list[str]:
    from ..common.render import placeholders

    return list(dict.fromkeys(placeholders(subject) + placeholders(content)))


def create(a: str, body: dict) -> dict:
    from .models import TemplateIn

    req: TemplateIn = parse_model(TemplateIn, body)
    now = clock.now_iso()
    item = {"id": ids.sortable_id().lower(), "account_id": a, "name": req.name.strip(), "subject": req.subject,
            "content": req.content, "type": req.type or "html", "category": req.category or "",
            "variables": req.variables if req.variables is not None else derive_variables(req.subject, req.content),
            "variables_explicit": req.variables is not None, "preview_url": req.preview_url or None,
            "created_at": now, "updated_at": now}
    repo.create(a, item)
    return public(item)


def get_template(a: str, tid: str) -> dict | None:
    return repo.get(a, tid)


def get(a: str, tid: str) -> dict:
    item = repo.get(a, tid)
    if item is None:
        raise NotFound("Template not found")
    return public(item)


def update(a: str, tid: str, body: dict) -> dict:
    from .models import TemplatePatch

    req: TemplatePatch = parse_model(TemplatePatch, body)
    changes = req.model_dump(exclude_unset=True)
    changes = {k: v for k, v in changes.items() if v is not None or k in ("preview_url",)}
    old = repo.get(a, tid)
    if old is None:
        raise NotFound("Template not found")
    if "variables" in changes:
        changes["variables_explicit"] = True
    elif ("subject" in changes or "content" in changes) and not old.get("variables_explicit"):
        changes["variables"] = derive_variables(changes.get("subject", old["subject"]),
                                                changes.get("content", old["content"]))
    if "category" in changes and changes["category"] is None:
        changes["category"] = ""
    changes["updated_at"] = clock.now_iso()
    return public(repo.update(a, tid, changes))


def delete(a: str, tid: str) -> dict:
    repo.delete(a, tid)
    return {"id": tid, "deleted": True}


def render_template(template: dict, variables: dict) -> dict:
    """``{subject, html, text, missing_variables}`` of a template with ``variables``."""
    from lambdakit.mime import html_to_text  # the converter of the sent text part (issue 30)

    from ..common.render import render

    subject, m1 = render(template["subject"], variables, html=False)
    if template.get("type") == "text":
        text, m2 = render(template["content"], variables, html=False)
        html = ""
    else:
        html, m2 = render(template["content"], variables, html=True)
        text = html_to_text(html)
    return {"subject": subject, "html": html, "text": text, "missing_variables": list(dict.fromkeys(m1 + m2))}


def preview(a: str, tid: str, body: dict) -> dict:
    from .models import PreviewIn

    req: PreviewIn = parse_model(PreviewIn, body)
    item = repo.get(a, tid)
    if item is None:
        raise NotFound("Template not found")
    return render_template(item, req.variables)


def list_page(a: str, page: str | None, limit: str | None, cursor: str | None) -> dict:
    items, meta = account_page(a, page, limit, cursor, lambda n, c: repo.page(a, n, c), lambda: repo.total(a))
    return {"templates": [public(i) for i in items], "pagination": meta}
