"""The receiver examples of docs/campaigns-webhooks.md, extracted from the page so that the tests run
exactly what a reader copies (``<!-- receiver:python -->`` / ``<!-- receiver:node -->`` code blocks)."""
from __future__ import annotations

import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[3] / "docs" / "campaigns-webhooks.md"


def example(lang: str) -> str:
    text = DOC.read_text(encoding="utf-8")
    fence = {"python": "python", "node": "js"}[lang]
    m = re.search(rf"<!-- receiver:{lang} -->\s*```{fence}\n(.*?)```", text, re.S)
    assert m, f"no {lang} receiver example in {DOC}"
    return m.group(1)


def python_receiver(secret: str, monkeypatch):
    """The documented Python ``receive(body, headers)`` with ``WEBHOOK_SECRET=secret``."""
    monkeypatch.setenv("WEBHOOK_SECRET", secret)
    namespace: dict = {"__name__": "receiver_example"}
    exec(compile(example("python"), str(DOC), "exec"), namespace)  # noqa: S102 - our own documentation
    return namespace["receive"]
