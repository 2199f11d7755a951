"""Moodle XML (``<quiz>``): multichoice, truefalse, shortanswer, essay. docs/exams-interchange.md."""
from __future__ import annotations

import re
from xml.etree.ElementTree import Element
from xml.sax.saxutils import escape, quoteattr

from .common import (
    LETTERS,
    XML_FORBIDDEN,
    FormatError,
    Item,
    Parsed,
    number,
    option_pairs,
    options_of,
    parse_xml,
    plain,
)

SUPPORTED = ("multichoice", "truefalse", "shortanswer", "essay")
_NOT_MAPPED = {
    "matching": "matching", "numerical": "numerical (tolerances)", "cloze": "cloze (embedded answers)",
    "multianswer": "cloze (embedded answers)", "ddwtos": "drag and drop into text", "ddimageortext": "drag and drop",
    "ddmarker": "drag and drop markers", "gapselect": "select missing words", "calculated": "calculated",
    "calculatedsimple": "calculated", "calculatedmulti": "calculated multichoice", "randomsamatch": "random matching",
    "description": "description (no answer)", "ordering": "ordering",
}


def _text(el: Element | None) -> str:
    if el is None:
        return ""
    t = el.find("text")
    return (t.text or "") if t is not None else (el.text or "")


def _fraction(a: Element) -> float:
    try:
        return float(a.get("fraction", "0"))
    except ValueError:
        raise ValueError(f"answer fraction {a.get('fraction')!r} is not a number") from None


def _files(q: Element) -> list[str]:
    return [f.get("name") or "?" for f in q.iter("file")]


def parse(data: bytes) -> Parsed:
    root, lines = parse_xml(data)
    if root.tag != "quiz":
        raise FormatError("A Moodle XML file has a <quiz> root element", line=1)
    out = Parsed()
    for n, q in enumerate(root.findall("question"), start=1):
        qtype = (q.get("type") or "").strip()
        if qtype == "category":
            continue
        line = lines.get(id(q), 1)
        ref = plain(_text(q.find("name"))) or f"question {n}"
        if qtype not in SUPPORTED:
            what = _NOT_MAPPED.get(qtype, qtype or "(no type)")
            out.error(line, ref, f"Moodle question type {what!r} cannot be mapped "
                                 f"(supported: {', '.join(SUPPORTED)})")
            continue
        try:
            fields, warnings = _fields(q, qtype)
        except ValueError as exc:
            out.error(line, ref, str(exc))
            continue
        files = _files(q)
        if files:
            warnings.append(f"embedded files are not stored (their references stay in the text): {', '.join(files)}")
        out.items.append(Item(line, ref, fields, warnings))
    if not out.items and not out.errors:
        raise FormatError("The file has no questions")
    return out


def _fields(q: Element, qtype: str) -> tuple[dict, list[str]]:
    warnings: list[str] = []
    fields: dict = {"question_text": _text(q.find("questiontext")).strip(), "marks": (q.findtext("defaultgrade") or "1").strip()}
    for tag in q.findall("tags/tag"):
        t = _text(tag).strip()
        if t.lower().startswith("difficulty:"):
            fields["difficulty"] = t.split(":", 1)[1].strip()
    answers = [(_text(a).strip(), _fraction(a)) for a in q.findall("answer")]
    if qtype == "multichoice":
        if len(answers) > len(LETTERS):
            raise ValueError(f"{len(answers)} answers: at most {len(LETTERS)} can be mapped")
        fields.update(options_of([t for t, _ in answers]))
        single = (q.findtext("single") or "true").strip().lower() in ("true", "1")
        right = [LETTERS[i] for i, (_, f) in enumerate(answers) if f > 0]
        if single and any(f < 0 for _, f in answers):
            warnings.append("negative marking of wrong answers is not kept (a wrong answer scores 0)")
        if single:
            partial = [f for _, f in answers if 0 < f < 100]
            if partial:
                raise ValueError(f"partial credit (fraction {number(partial[0])}) cannot be mapped")
            if len(right) != 1:
                raise ValueError("a single-answer multichoice needs exactly one answer with fraction 100")
            fields.update(question_type="mcq", correct_answer=right[0])
        else:
            pos = [f for _, f in answers if f > 0]
            if not pos or max(pos) - min(pos) > 0.01 or abs(sum(pos) - 100) > 0.1:
                raise ValueError("a multiple-answer multichoice maps only when its correct answers share "
                                 "100% equally (weighted partial credit cannot be mapped)")
            fields.update(question_type="multi_select", correct_answers=right)
    elif qtype == "truefalse":
        right = [t.lower() for t, f in answers if f >= 100]
        if len(right) != 1 or right[0] not in ("true", "false"):
            raise ValueError("a truefalse question needs the answer 'true' or 'false' with fraction 100")
        fields.update(question_type="true_false", correct_answer=right[0])
    elif qtype == "shortanswer":
        partial = [f for _, f in answers if 0 < f < 100]
        if partial:
            raise ValueError(f"partial credit (fraction {number(partial[0])}) cannot be mapped")
        texts = [t for t, f in answers if f >= 100]
        if any("*" in t for t in texts):
            raise ValueError("wildcards (*) in accepted answers cannot be mapped (answers match exactly)")
        fields.update(question_type="fill_blank", correct_answers=texts,
                      case_sensitive=(q.findtext("usecase") or "0").strip() == "1")
    else:  # essay: graded by hand; the grader information is the model answer
        model = _text(q.find("graderinfo")).strip()
        fields.update(question_type="subjective", correct_answer=model or None)
    return fields, warnings


# ------------------------------------------------------------------ export
_CONTROL = XML_FORBIDDEN
_HTML = re.compile(r"<[a-zA-Z/][^>]*>")


def _cdata(s: str) -> str:
    return "<![CDATA[" + _CONTROL.sub("", s).replace("]]>", "]]]]><![CDATA[>") + "]]>"


def _fmt(s: str) -> str:
    return "html" if _HTML.search(s) else "plain_text"


def _textel(tag: str, s: str, *, fmt: bool = True) -> str:
    attr = f' format="{_fmt(s)}"' if fmt else ""
    return f"<{tag}{attr}><text>{_cdata(s)}</text></{tag}>"


def _answer(text: str, fraction: str) -> str:
    return (f'<answer fraction={quoteattr(fraction)} format="{_fmt(text)}"><text>{_cdata(text)}</text>'
            f'<feedback format="html"><text></text></feedback></answer>')


def _question(q: dict) -> str:
    qt = q["question_type"]
    name = plain(q["question_text"])[:80] or q["id"]
    parts = [f"<name><text>{escape(_CONTROL.sub('', name))}</text></name>", _textel("questiontext", q["question_text"]),
             '<generalfeedback format="html"><text></text></generalfeedback>',
             f"<defaultgrade>{number(q['marks'])}</defaultgrade>", "<penalty>0</penalty>", "<hidden>0</hidden>",
             f"<idnumber>{escape(q['id'])}</idnumber>"]
    if qt in ("mcq", "multi_select"):
        pairs = option_pairs(q)
        share = number(round(100 / max(1, sum(ok for _, ok in pairs)), 5)) if qt == "multi_select" else "100"
        parts += [f"<single>{'true' if qt == 'mcq' else 'false'}</single>", "<shuffleanswers>true</shuffleanswers>",
                  "<answernumbering>abc</answernumbering>"]
        wrong = "0" if qt == "mcq" else "-100"
        parts += [_answer(t, share if ok else wrong) for t, ok in pairs]
        mtype = "multichoice"
    elif qt == "true_false":
        parts += [_answer("true", "100" if q.get("correct_answer") == "A" else "0"),
                  _answer("false", "100" if q.get("correct_answer") == "B" else "0")]
        mtype = "truefalse"
    elif qt == "fill_blank":
        parts.append(f"<usecase>{1 if q.get('case_sensitive') else 0}</usecase>")
        parts += [_answer(t, "100") for t in q.get("correct_answers") or []]
        mtype = "shortanswer"
    else:  # subjective, coding
        parts += ["<responseformat>editor</responseformat>", "<responserequired>1</responserequired>",
                  "<responsefieldlines>15</responsefieldlines>", "<attachments>0</attachments>",
                  _textel("graderinfo", q.get("correct_answer") or ""),
                  '<responsetemplate format="html"><text></text></responsetemplate>']
        mtype = "essay"
    parts.append(f"<tags><tag><text>{escape('difficulty:' + q['difficulty'])}</text></tag></tags>")
    return f'  <question type="{mtype}">\n    ' + "\n    ".join(parts) + "\n  </question>\n"


def export(questions: list[dict], *, title: str) -> bytes:
    head = ('<?xml version="1.0" encoding="UTF-8"?>\n<quiz>\n  <question type="category">\n'
            f"    <category><text>{escape('$course$/top/' + _CONTROL.sub('', title).replace('/', '//'))}</text></category>\n"
            "  </question>\n")
    return (head + "".join(_question(q) for q in questions) + "</quiz>\n").encode("utf-8")


