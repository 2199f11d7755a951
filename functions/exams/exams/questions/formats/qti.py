"""QTI 3.0 (1EdTech): one ``qti-assessment-item`` XML, or a content package zip whose
``imsmanifest.xml`` lists the items. Choice (single → mcq, multiple → multi_select, identifiers
TRUE/FALSE → true_false), text entry → fill_blank, extended text → subjective. Export: a content
package. docs/exams-interchange.md."""
from __future__ import annotations

import io
import posixpath
import zipfile
from xml.etree.ElementTree import Element
from xml.sax.saxutils import escape, quoteattr

from .common import (
    LETTERS,
    XML_FORBIDDEN,
    FormatError,
    Item,
    Parsed,
    correct_letters,
    local,
    number,
    options_of,
    parse_xml,
    read_zip,
    xml_text,
)

NS = "http://www.imsglobal.org/xsd/imsqtiasi_v3p0"
CP_NS = "http://www.imsglobal.org/xsd/imscp_v1p1"
_NOT_MAPPED = ("qti-match-interaction", "qti-associate-interaction", "qti-gap-match-interaction",
               "qti-graphic-gap-match-interaction", "qti-hotspot-interaction", "qti-hottext-interaction",
               "qti-inline-choice-interaction", "qti-order-interaction", "qti-slider-interaction",
               "qti-select-point-interaction", "qti-graphic-order-interaction", "qti-graphic-associate-interaction",
               "qti-position-object-interaction", "qti-drawing-interaction", "qti-upload-interaction",
               "qti-media-interaction", "qti-custom-interaction", "qti-portable-custom-interaction")
_INTERACTIONS = ("qti-choice-interaction", "qti-text-entry-interaction", "qti-extended-text-interaction")


def _find(el: Element, name: str) -> Element | None:
    return next((e for e in el.iter() if local(e.tag) == name), None)


def _all(el: Element, name: str) -> list[Element]:
    return [e for e in el.iter() if local(e.tag) == name]


def _inner(el: Element) -> str:
    """The element's content as (X)HTML text, without namespaces: the question text of a prompt."""
    out = [escape(el.text or "")]
    for child in el:
        if local(child.tag) in _INTERACTIONS:
            out.append("_____" + escape(child.tail or ""))
            continue
        attrs = "".join(f" {local(k)}={quoteattr(v)}" for k, v in child.attrib.items())
        out.append(f"<{local(child.tag)}{attrs}>{_inner(child)}</{local(child.tag)}>")
        out.append(escape(child.tail or ""))
    return "".join(out)


def _content(el: Element) -> str:
    """Text only: the text as it is (our export escapes any markup in it); with child elements:
    the HTML of the content (a real package's rich prompt)."""
    return (el.text or "") if len(el) == 0 else _inner(el)


def parse(data: bytes) -> Parsed:
    out = Parsed()
    if data[:4] == b"PK\x03\x04":
        files = read_zip(data)
        manifest = files.get("imsmanifest.xml")
        if manifest is None:
            raise FormatError("The package has no imsmanifest.xml")
        root, _ = parse_xml(manifest)
        refs: list[tuple[str, list[str]]] = []
        for res in _all(root, "resource"):
            if (res.get("type") or "").startswith("imsqti_item_xmlv3p0"):
                href = posixpath.normpath(res.get("href") or "")
                deps = [posixpath.normpath(f.get("href") or "") for f in _all(res, "file")]  # from the root
                deps = [d for d in deps if d != href]
                refs.append((href, deps))
        if not refs:
            raise FormatError("The manifest lists no QTI 3.0 items (resource type imsqti_item_xmlv3p0)")
        for href, deps in refs:
            if href not in files:
                out.error(1, href, "the item file listed in the manifest is not in the package")
                continue
            _item(out, files[href], href, [d for d in deps if not d.endswith(".xml")])
    else:
        _item(out, data, "item", [], single=True)
    return out


def _item(out: Parsed, data: bytes, name: str, assets: list[str], *, single: bool = False) -> None:
    try:
        root, lines = parse_xml(data)
    except FormatError as exc:
        if single:
            raise
        out.error(exc.line, name, exc.message)
        return
    if local(root.tag) != "qti-assessment-item" or root.tag.split("}")[0].lstrip("{") != NS:
        msg = f"not a QTI 3.0 item (root {local(root.tag)!r} in namespace {NS})"
        if single:
            raise FormatError(msg)
        out.error(1, name, msg)
        return
    ref = f"{name} ({root.get('identifier') or '?'})" if not single else root.get("identifier") or name
    line = lines.get(id(root), 1)
    try:
        fields = _fields(root)
    except ValueError as exc:
        out.error(line, ref, str(exc))
        return
    except RecursionError:  # markup nested thousands deep in a prompt or choice
        out.error(line, ref, "the item's markup is nested too deeply")
        return
    warnings = []
    images = [i.get("src") for i in _all(root, "img") + _all(root, "object") if i.get("src")] + assets
    if images:
        warnings.append(f"referenced files are not stored (their references stay in the text): "
                        f"{', '.join(dict.fromkeys(x for x in images if x))}")
    out.items.append(Item(line, ref, fields, warnings))


def _fields(root: Element) -> dict:
    body = _find(root, "qti-item-body")
    if body is None:
        raise ValueError("the item has no qti-item-body")
    others = sorted({local(e.tag) for e in body.iter() if local(e.tag) in _NOT_MAPPED})
    if others:
        raise ValueError(f"{others[0]} cannot be mapped (supported: choice, text entry, extended text)")
    inters = [e for e in body.iter() if local(e.tag) in _INTERACTIONS]
    if len(inters) != 1:
        raise ValueError(f"an item maps only with exactly one interaction (found {len(inters)})")
    inter = inters[0]
    rid = inter.get("response-identifier") or ""
    decl = next((d for d in _all(root, "qti-response-declaration") if d.get("identifier") == rid), None)
    if decl is None:
        raise ValueError(f"no qti-response-declaration for {rid!r}")
    cr = _find(decl, "qti-correct-response")
    correct = [(v.text or "").strip() for v in _all(cr, "qti-value")] if cr is not None else []
    prompt = _find(inter, "qti-prompt")
    lead = "".join(_render(p) for p in body if local(p.tag) not in ("qti-rubric-block", "qti-modal-feedback")
                   and not any(local(e.tag) in _INTERACTIONS for e in p.iter())).strip()
    if prompt is not None and lead:  # content before the interaction, then the prompt: HTML
        text = f"{lead}<p>{_inner(prompt).strip()}</p>"
    elif prompt is not None:
        text = _content(prompt).strip()
    else:
        text = _body_text(body)
    fields: dict = {"question_text": text, "marks": "1"}
    for od in _all(root, "qti-outcome-declaration"):
        if od.get("identifier") == "MAXSCORE":
            v = _find(od, "qti-value")
            fields["marks"] = (v.text or "1").strip() if v is not None else "1"
    label = root.get("label") or ""
    if label.startswith("difficulty:"):
        fields["difficulty"] = label.split(":", 1)[1]
    kind = local(inter.tag)
    if kind == "qti-choice-interaction":
        choices = _all(inter, "qti-simple-choice")
        ids = [c.get("identifier") or "" for c in choices]
        if len(choices) > len(LETTERS):
            raise ValueError(f"{len(choices)} choices: at most {len(LETTERS)} can be mapped")
        multiple = decl.get("cardinality") in ("multiple", "ordered")
        unknown = [c for c in correct if c not in ids]
        if not correct or unknown:
            raise ValueError("the correct response must name choices of the interaction")
        if not multiple and sorted(ids) == ["FALSE", "TRUE"]:
            fields.update(question_type="true_false", correct_answer=correct[0].lower())
            return fields
        fields.update(options_of([_content(c).strip() for c in choices]))
        letters = [LETTERS[ids.index(c)] for c in correct]
        if multiple:
            fields.update(question_type="multi_select", correct_answers=letters)
        else:
            fields.update(question_type="mcq", correct_answer=letters[0])
    elif kind == "qti-text-entry-interaction":
        entries = _all(decl, "qti-map-entry")
        partial = [e for e in entries if 0 < _num(e.get("mapped-value")) < _num(fields["marks"])]
        if partial:
            raise ValueError("partial credit in the response mapping cannot be mapped")
        accepted = list(dict.fromkeys([*correct, *(e.get("map-key") or "" for e in entries
                                                   if _num(e.get("mapped-value")) > 0)]))
        fields.update(question_type="fill_blank", correct_answers=accepted,
                      case_sensitive=bool(entries) and all(e.get("case-sensitive") == "true" for e in entries))
    else:
        rubric = next((r for r in _all(body, "qti-rubric-block") if r.get("view") == "scorer"), None)
        para = _find(rubric, "p") if rubric is not None else None
        model = _content(para if para is not None else rubric).strip() if rubric is not None else ""
        fields.update(question_type="subjective", correct_answer=model or None)
    return fields


def _body_text(body: Element) -> str:
    """The question text of an item without a prompt: a lone text paragraph (our own export of a
    fill-in-the-blank), else the body's HTML with each text entry shown as ``_____``."""
    parts = [p for p in body if local(p.tag) not in ("qti-rubric-block", "qti-modal-feedback")]
    holders = [p for p in parts if any(local(e.tag) in _INTERACTIONS for e in p.iter())]
    texts = [p for p in parts if p not in holders]
    if (len(texts) == 1 and local(texts[0].tag) == "p" and len(texts[0]) == 0
            and all(not (h.text or "").strip() and len(h) == 1 and local(h[0].tag) in _INTERACTIONS
                    and not (h[0].tail or "").strip() for h in holders)):
        return (texts[0].text or "").strip()
    return "".join(_render(p) for p in parts).strip()


def _render(el: Element) -> str:
    if local(el.tag) in _INTERACTIONS:
        return "_____" + escape(el.tail or "")
    attrs = "".join(f" {local(k)}={quoteattr(v)}" for k, v in el.attrib.items())
    return f"<{local(el.tag)}{attrs}>{_inner(el)}</{local(el.tag)}>" + escape(el.tail or "")


def _num(v: str | None) -> float:
    try:
        return float(v or 0)
    except ValueError:
        return 0.0


# ------------------------------------------------------------------ export
def _value(v: str) -> str:
    return f"<qti-value>{xml_text(v)}</qti-value>"


def item_xml(q: dict, ident: str) -> str:
    qt = q["question_type"]
    marks = number(q["marks"])
    prompt = f"<qti-prompt>{xml_text(q['question_text'])}</qti-prompt>"
    rp = ""
    extra_body = ""
    if qt in ("mcq", "multi_select", "true_false"):
        if qt == "true_false":
            choices = [("TRUE", q.get("option_a") or "True"), ("FALSE", q.get("option_b") or "False")]
            right = ["TRUE" if q.get("correct_answer") == "A" else "FALSE"]
        else:
            choices = [(x, q[f"option_{x.lower()}"]) for x in LETTERS if q.get(f"option_{x.lower()}")]
            right = sorted(correct_letters(q))
        multiple = qt == "multi_select"
        decl = (f'<qti-response-declaration identifier="RESPONSE" cardinality="{"multiple" if multiple else "single"}" '
                f'base-type="identifier"><qti-correct-response>{"".join(_value(r) for r in right)}'
                f"</qti-correct-response></qti-response-declaration>")
        inter = (f'<qti-choice-interaction response-identifier="RESPONSE" max-choices="{0 if multiple else 1}">'
                 f"{prompt}" + "".join(f'<qti-simple-choice identifier="{c}">{xml_text(t)}</qti-simple-choice>'
                                       for c, t in choices) + "</qti-choice-interaction>")
        rp = '<qti-response-processing template="https://purl.imsglobal.org/spec/qti/v3p0/rptemplates/match_correct.xml"/>'
    elif qt == "fill_blank":
        accepted = q.get("correct_answers") or []
        cs = "true" if q.get("case_sensitive") else "false"
        decl = ('<qti-response-declaration identifier="RESPONSE" cardinality="single" base-type="string">'
                f"<qti-correct-response>{_value(accepted[0])}</qti-correct-response>"
                f'<qti-mapping default-value="0" upper-bound="{marks}">'
                + "".join(f'<qti-map-entry map-key={quoteattr(XML_FORBIDDEN.sub('', a))} mapped-value="{marks}" case-sensitive="{cs}"/>'
                          for a in accepted) + "</qti-mapping></qti-response-declaration>")
        inter = '<p><qti-text-entry-interaction response-identifier="RESPONSE"/></p>'
        extra_body = f"<p>{xml_text(q['question_text'])}</p>"
        rp = '<qti-response-processing template="https://purl.imsglobal.org/spec/qti/v3p0/rptemplates/map_response.xml"/>'
    else:
        decl = '<qti-response-declaration identifier="RESPONSE" cardinality="single" base-type="string"/>'
        inter = f'<qti-extended-text-interaction response-identifier="RESPONSE">{prompt}</qti-extended-text-interaction>'
        if q.get("correct_answer"):
            extra_body = f'<qti-rubric-block use="scoring" view="scorer"><qti-content-body><p>{xml_text(q["correct_answer"])}</p></qti-content-body></qti-rubric-block>'
    title = xml_text(" ".join(q["question_text"].split())[:200]).replace('"', "&quot;")
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<qti-assessment-item xmlns="{NS}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
            f'xsi:schemaLocation="{NS} https://purl.imsglobal.org/spec/qti/v3p0/schema/xsd/imsqti_asiv3p0_v1p0.xsd" '
            f'identifier="{ident}" title="{title}" label="difficulty:{q["difficulty"]}" adaptive="false" '
            f'time-dependent="false">\n'
            f"{decl}\n"
            '<qti-outcome-declaration identifier="SCORE" cardinality="single" base-type="float">'
            "<qti-default-value><qti-value>0</qti-value></qti-default-value></qti-outcome-declaration>\n"
            '<qti-outcome-declaration identifier="MAXSCORE" cardinality="single" base-type="float">'
            f"<qti-default-value><qti-value>{marks}</qti-value></qti-default-value></qti-outcome-declaration>\n"
            f"<qti-item-body>{extra_body}{inter}</qti-item-body>\n{rp}\n</qti-assessment-item>\n")


def export(questions: list[dict], *, title: str) -> bytes:
    buf = io.BytesIO()
    resources = []
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for n, q in enumerate(questions, start=1):
            ident = f"q{n:04d}"
            href = f"items/{ident}.xml"
            z.writestr(href, item_xml(q, ident))
            resources.append(f'<resource identifier="res-{ident}" type="imsqti_item_xmlv3p0" href="{href}">'
                             f'<file href="{href}"/></resource>')
        z.writestr("imsmanifest.xml",
                   '<?xml version="1.0" encoding="UTF-8"?>\n'
                   '<manifest xmlns="http://www.imsglobal.org/xsd/qti/qtiv3p0/imscp_v1p1" identifier="exams-export" '
                   'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n'
                   "<metadata><schema>QTI Package</schema><schemaversion>3.0.0</schemaversion></metadata>\n"
                   "<organizations/>\n<resources>\n" + "\n".join(resources) + "\n</resources>\n</manifest>\n")
    return buf.getvalue()
