"""GIFT (Moodle's text format): multiple choice, multiple answers, true/false, short answer, essay.

Our marks, difficulty and case sensitivity, which GIFT has no syntax for, travel as comment lines
``// marks: 2``, ``// difficulty: hard``, ``// case_sensitive: true`` and an essay's
``// model_answer: …`` (GIFT-escaped) right above a question (other readers skip comments). docs/exams-interchange.md."""
from __future__ import annotations

import re

from .common import LETTERS, FormatError, Item, Parsed, decode, number, option_pairs, options_of, plain

_META = re.compile(r"^//\s*(marks|difficulty|case_sensitive|model_answer)\s*:\s*(.*?)\s*$", re.IGNORECASE)
_SPECIAL = "~=#{}:"


def _blocks(text: str) -> list[tuple[int, list[str]]]:
    """Questions are separated by blank lines: (first line number, lines)."""
    out: list[tuple[int, list[str]]] = []
    cur: list[str] = []
    start = 0
    for n, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            if not cur:
                start = n
            cur.append(line)
        elif cur:
            out.append((start, cur))
            cur = []
    if cur:
        out.append((start, cur))
    return out


def _unescape(s: str) -> str:
    out, i = [], 0
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s):
            nxt = s[i + 1]
            out.append("\n" if nxt == "n" else nxt)
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def _find(s: str, chars: str, start: int = 0) -> int:
    """Index of the first unescaped character of ``chars`` from ``start``, or -1."""
    i = start
    while i < len(s):
        if s[i] == "\\":
            i += 2
            continue
        if s[i] in chars:
            return i
        i += 1
    return -1


def _split_answers(body: str) -> list[tuple[str, str]]:
    """``=a ~b#fb`` → [("=", "a"), ("~", "b")] (feedback dropped, texts unescaped)."""
    out: list[tuple[str, str]] = []
    i = _find(body, "=~")
    if body[:max(i, 0)].strip() if i >= 0 else body.strip():
        raise ValueError("answer text before the first = or ~")
    while i >= 0:
        j = _find(body, "=~", i + 1)
        raw = body[i + 1:j if j >= 0 else len(body)]
        fb = _find(raw, "#")
        if fb >= 0:
            raw = raw[:fb]
        out.append((body[i], raw.strip()))
        i = j
    return out


def _weight(text: str) -> tuple[float | None, str]:
    m = re.match(r"^%(-?\d+(?:\.\d+)?)%(.*)$", text, re.DOTALL)
    return (float(m.group(1)), m.group(2).strip()) if m else (None, text)


def parse(data: bytes) -> Parsed:
    text = decode(data)
    if not text.strip():
        raise FormatError("The file is empty")
    out = Parsed()
    n = 0
    for line, lines in _blocks(text):
        meta: dict[str, str] = {}
        body: list[str] = []
        first = line
        for k, ln in enumerate(lines):
            m = _META.match(ln.strip())
            if m:
                meta[m.group(1).lower()] = m.group(2)
            elif ln.strip().startswith("//") or ln.strip().startswith("$CATEGORY:"):
                continue
            else:
                first = first if body else line + k
                body.append(ln)
        if not body:
            continue
        n += 1
        src = "\n".join(body)
        ref = _title(src) or f"question {n}"
        try:
            fields = _question(src)
        except ValueError as exc:
            out.error(first, ref, str(exc))
            continue
        fields.update({k: v for k, v in meta.items() if k in ("marks", "difficulty")})
        if "model_answer" in meta and fields.get("question_type") == "subjective":
            fields["correct_answer"] = _unescape(meta["model_answer"])
        if "case_sensitive" in meta:
            fields["case_sensitive"] = meta["case_sensitive"].lower() in ("1", "true", "yes")
        out.items.append(Item(first, ref, fields))
    if not out.items and not out.errors:
        raise FormatError("The file has no questions")
    return out


def _title(src: str) -> str:
    s = src.strip()
    end = _find(s, ":", 2) if s.startswith("::") else -1
    return _unescape(s[2:end]).strip() if end > 0 else ""


def _question(src: str) -> dict:
    s = src.strip()
    if s.startswith("::"):
        end = _find(s, ":", 2)
        if end < 0 or end + 1 >= len(s) or s[end + 1] != ":":
            raise ValueError("unterminated ::title::")
        s = s[end + 2:].lstrip()
    m = re.match(r"^\[(html|moodle|plain|markdown)\]", s)
    if m:
        s = s[m.end():]
    open_ = _find(s, "{")
    if open_ < 0:
        raise ValueError("no answer block {…} (a description item cannot be mapped)")
    close = _find(s, "}", open_)
    if close < 0:
        raise ValueError("unterminated answer block {…}")
    before, block, after = s[:open_].strip(), s[open_ + 1:close].strip(), s[close + 1:].strip()
    if _find(after, "{") >= 0:
        raise ValueError("more than one answer block (cloze) cannot be mapped")
    qtext = _unescape(before) + (" _____ " + _unescape(after) if after else "")
    fields: dict = {"question_text": qtext.strip()}
    if block == "":
        fields["question_type"] = "subjective"
        return fields
    if block.startswith("#"):
        raise ValueError("numerical questions (tolerances, ranges) cannot be mapped")
    tf = re.match(r"^(TRUE|FALSE|T|F)\s*(#.*)?$", block, re.DOTALL)
    if tf:
        fields.update(question_type="true_false", correct_answer="true" if tf.group(1).startswith("T") else "false")
        return fields
    answers = _split_answers(block)
    if any(_find(t, "-") >= 0 and "->" in t for _, t in answers):
        raise ValueError("matching questions cannot be mapped")
    weighted = [(kind, *_weight(t)) for kind, t in answers]
    texts = [_unescape(t) for _, _, t in weighted]
    if all(kind == "=" for kind, _, _ in weighted):  # short answer: every answer accepted
        if any(w is not None and w != 100 for _, w, _ in weighted):
            raise ValueError("partial credit on short answers cannot be mapped")
        fields.update(question_type="fill_blank", correct_answers=texts)
        return fields
    if len(texts) > len(LETTERS):
        raise ValueError(f"{len(texts)} answers: at most {len(LETTERS)} can be mapped")
    fields.update(options_of(texts))
    eq = [i for i, (kind, _, _) in enumerate(weighted) if kind == "="]
    if eq:
        if len(eq) > 1 or any(w is not None and w != 100 for kind, w, _ in weighted if kind == "="):
            raise ValueError("a multiple choice needs exactly one =answer")
        if any(w is not None and w > 0 for kind, w, _ in weighted if kind == "~"):
            raise ValueError("partial credit on a wrong answer cannot be mapped")
        fields.update(question_type="mcq", correct_answer=LETTERS[eq[0]])
        return fields
    pos = [w for _, w, _ in weighted if w is not None and w > 0]
    if not pos:
        raise ValueError("no correct answer (= or a positive ~%weight%)")
    if max(pos) - min(pos) > 0.01 or abs(sum(pos) - 100) > 0.1:
        raise ValueError("multiple answers map only when the correct ones share 100% equally")
    fields.update(question_type="multi_select",
                  correct_answers=[LETTERS[i] for i, (_, w, _) in enumerate(weighted) if w is not None and w > 0])
    return fields


# ------------------------------------------------------------------ export
def escape(s: str) -> str:
    s = s.replace("\\", "\\\\")
    for c in _SPECIAL:
        s = s.replace(c, "\\" + c)
    return s.replace("\r\n", "\n").replace("\r", "\n").replace("\n", "\\n")


def _write(q: dict) -> str:
    qt = q["question_type"]
    title = plain(q["question_text"])[:60] or q["id"]
    lines = [f"// marks: {number(q['marks'])}", f"// difficulty: {q['difficulty']}"]
    if qt in ("subjective", "coding") and q.get("correct_answer"):
        lines.append(f"// model_answer: {escape(q['correct_answer'])}")
    if qt == "fill_blank":
        lines.append(f"// case_sensitive: {'true' if q.get('case_sensitive') else 'false'}")
    if qt in ("mcq", "multi_select"):
        pairs = option_pairs(q)
        if qt == "mcq":
            answers = [("=" if ok else "~") + escape(t) for t, ok in pairs]
        else:
            share = number(round(100 / max(1, sum(ok for _, ok in pairs)), 5))
            answers = [f"~%{share if ok else '-100'}%" + escape(t) for t, ok in pairs]
        block = "{\n\t" + "\n\t".join(answers) + "\n}"
    elif qt == "true_false":
        block = "{TRUE}" if q.get("correct_answer") == "A" else "{FALSE}"
    elif qt == "fill_blank":
        block = "{\n\t" + "\n\t".join("=" + escape(t) for t in q.get("correct_answers") or []) + "\n}"
    else:
        block = "{}"
    fmt = "[html]" if re.search(r"<[a-zA-Z/][^>]*>", q["question_text"]) else ""
    lines.append(f"::{escape(title)}::{fmt}{escape(q['question_text'])} {block}")
    return "\n".join(lines) + "\n"


def export(questions: list[dict], *, title: str) -> bytes:
    head = f"// {title.replace(chr(10), ' ')} (exported from the exams service)\n\n"
    return (head + "\n".join(_write(q) for q in questions)).encode("utf-8")
