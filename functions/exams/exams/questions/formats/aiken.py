"""Aiken: single-answer multiple choice only (a one-line question, lettered options, ``ANSWER: X``).
Marks and difficulty have no place in Aiken: they import as the defaults. docs/exams-interchange.md."""
from __future__ import annotations

import re

from .common import LETTERS, FormatError, Item, Parsed, Unexportable, decode, option_pairs, options_of

_OPTION = re.compile(r"^([A-Z])[.)]\s+(.*)$")
_ANSWER = re.compile(r"^ANSWER:\s*([A-Z])\s*$")


def parse(data: bytes) -> Parsed:
    text = decode(data)
    if not text.strip():
        raise FormatError("The file is empty")
    out = Parsed()
    n = 0
    cur: list[tuple[int, str]] = []
    for lineno, raw in enumerate([*text.splitlines(), ""], start=1):
        line = raw.strip()
        if line:
            cur.append((lineno, line))
            if not _ANSWER.match(line):
                continue
        if not cur:
            continue
        n += 1
        _one(out, cur, n)
        cur = []
    if not out.items and not out.errors:
        raise FormatError("The file has no questions")
    return out


def _one(out: Parsed, lines: list[tuple[int, str]], n: int) -> None:
    start, question = lines[0]
    ref = f"question {n}"
    ans = _ANSWER.match(lines[-1][1])
    if not ans:
        out.error(lines[-1][0], ref, "the question does not end with an 'ANSWER: <letter>' line")
        return
    opts: list[tuple[str, str]] = []
    for lineno, line in lines[1:-1]:
        m = _OPTION.match(line)
        if not m:
            out.error(lineno, ref, "expected an option line such as 'A. text' or 'A) text' (the question is one line)")
            return
        opts.append((m.group(1), m.group(2).strip()))
    letters = [x for x, _ in opts]
    if letters != [chr(ord("A") + i) for i in range(len(opts))]:
        out.error(start, ref, "options must be lettered A, B, C, … in order")
        return
    if len(opts) > len(LETTERS):
        out.error(start, ref, f"{len(opts)} options: at most {len(LETTERS)} can be mapped")
        return
    fields = {"question_text": question, "question_type": "mcq", "correct_answer": ans.group(1),
              **options_of([t for _, t in opts])}
    out.items.append(Item(start, ref, fields))


def export(questions: list[dict], *, title: str) -> bytes:
    problems = []
    blocks = []
    for q in questions:
        texts = [q["question_text"], *(t for t, _ in option_pairs(q))] if q["question_type"] == "mcq" else []
        if q["question_type"] != "mcq":
            problems.append({"question_id": q["id"], "error": f"Aiken carries only single-answer multiple choice, "
                                                              f"not {q['question_type']}"})
        elif any("\n" in t or "\r" in t for t in texts):
            problems.append({"question_id": q["id"], "error": "Aiken questions and options are one line each"})
        else:
            pairs = option_pairs(q)
            right = next(LETTERS[i] for i, (_, ok) in enumerate(pairs) if ok)
            body = [q["question_text"].strip(), *(f"{LETTERS[i]}. {t.strip()}" for i, (t, _) in enumerate(pairs))]
            blocks.append("\n".join([*body, f"ANSWER: {right}"]) + "\n")
    if problems:
        raise Unexportable(problems)
    return "\n".join(blocks).encode("utf-8")
