"""Server-side grading (pure functions, no I/O).

Answer keys are snapshotted onto the test when it is published (see
``exams.papers.service.publish``), so grading a 200-question attempt needs the
key item and the saved answers only, and runs in memory.
"""
from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from typing import Any, Iterable

QUESTION_TYPES = ("mcq", "true_false", "multi_select", "fill_blank", "subjective", "coding")
AUTO_GRADED = frozenset({"mcq", "true_false", "multi_select", "fill_blank"})
MANUAL = frozenset({"subjective", "coding"})
OPTION_LETTERS = ("A", "B", "C", "D")

_TRUE = {"A", "TRUE", "T", "1", "YES"}
_FALSE = {"B", "FALSE", "F", "0", "NO"}


# ------------------------------------------------------------------ normalisation
def norm_letter(value: Any) -> str | None:
    if value is None:
        return None
    s = str(value).strip().upper()
    return s or None


def norm_true_false(value: Any) -> str | None:
    """``A``/``true`` → ``A``; ``B``/``false`` → ``B``; anything else → ``None``."""
    if isinstance(value, bool):
        return "A" if value else "B"
    s = norm_letter(value)
    if s in _TRUE:
        return "A"
    if s in _FALSE:
        return "B"
    return None


def norm_letters(value: Any) -> tuple[str, ...]:
    """Multi-select answer: ``"A,C"``, ``"a, c"`` or ``["A", "C"]`` → ``("A", "C")`` (sorted, unique)."""
    if value is None:
        return ()
    parts: Iterable[Any]
    if isinstance(value, (list, tuple, set, frozenset)):
        parts = value
    else:
        parts = str(value).split(",")
    out = {str(p).strip().upper() for p in parts if p is not None and str(p).strip()}
    return tuple(sorted(out))


def norm_text(value: Any, case_sensitive: bool = False) -> str:
    s = unicodedata.normalize("NFC", str(value if value is not None else "")).strip()
    return s if case_sensitive else s.casefold()


def is_blank(answer: Any) -> bool:
    if answer is None:
        return True
    if isinstance(answer, (list, tuple, set)):
        return not any(str(a).strip() for a in answer)
    return not str(answer).strip()


# ------------------------------------------------------------------ answer keys
@dataclass(frozen=True)
class KeyEntry:
    """What grading needs of one question (snapshotted at publish)."""

    question_id: str
    question_type: str
    marks: float
    correct: Any  # str letter, tuple of letters, tuple of accepted texts, or None (manual)
    case_sensitive: bool = False
    section_id: str | None = None
    negative_ratio: float = 0.0  # effective fraction deducted for a wrong answer

    def to_item(self) -> dict:
        return {"t": self.question_type, "m": self.marks, "c": list(self.correct) if isinstance(self.correct, tuple)
                else self.correct, "cs": self.case_sensitive, "s": self.section_id, "nr": self.negative_ratio}

    @classmethod
    def from_item(cls, qid: str, d: dict) -> "KeyEntry":
        c = d.get("c")
        return cls(qid, d["t"], float(d.get("m") or 0), tuple(c) if isinstance(c, list) else c,
                   bool(d.get("cs")), d.get("s"), float(d.get("nr") or 0))


def key_for_question(q: dict, *, negative_ratio: float, section_id: str | None = None) -> KeyEntry:
    """Build the key entry of a stored question (validated on create/import)."""
    qt = q["question_type"]
    if qt == "multi_select":
        src = q.get("correct_answers") or q.get("correct_answer")
        correct: Any = norm_letters(src)
    elif qt == "fill_blank":
        src = q.get("correct_answers")
        if not src:
            src = [q.get("correct_answer")] if q.get("correct_answer") else []
        correct = tuple(str(s) for s in src)
    elif qt == "true_false":
        correct = norm_true_false(q.get("correct_answer"))
    elif qt == "mcq":
        correct = norm_letter(q.get("correct_answer"))
    else:
        correct = None
    return KeyEntry(q["id"], qt, float(q.get("marks") or 0), correct, bool(q.get("case_sensitive")), section_id,
                    negative_ratio)


# ------------------------------------------------------------------ grading
@dataclass
class QuestionResult:
    question_id: str
    question_type: str
    answer: Any
    status: str  # correct | incorrect | unanswered | pending
    marks_awarded: float
    max_marks: float
    section_id: str | None = None

    def to_item(self) -> dict:
        return {"question_id": self.question_id, "question_type": self.question_type, "answer": self.answer,
                "status": self.status, "marks_awarded": self.marks_awarded, "max_marks": self.max_marks,
                "section_id": self.section_id}


@dataclass
class GradeResult:
    score: float
    raw_score: float
    total_marks: float
    pending_manual: int
    results: list[QuestionResult] = field(default_factory=list)

    @property
    def percentage(self) -> float:
        return round(100.0 * self.score / self.total_marks, 4) if self.total_marks else 0.0


def is_correct(key: KeyEntry, answer: Any) -> bool:
    qt = key.question_type
    if qt == "mcq":
        return norm_letter(answer) is not None and norm_letter(answer) == key.correct
    if qt == "true_false":
        return key.correct is not None and norm_true_false(answer) == key.correct
    if qt == "multi_select":
        return bool(key.correct) and norm_letters(answer) == tuple(key.correct)
    if qt == "fill_blank":
        if isinstance(answer, (list, tuple)):
            answer = answer[0] if answer else ""
        got = norm_text(answer, key.case_sensitive)
        return any(got == norm_text(c, key.case_sensitive) for c in key.correct or ())
    return False


def grade_one(key: KeyEntry, answer: Any, negative_marking: bool, manual_marks: float | None = None) -> QuestionResult:
    if key.question_type in MANUAL:
        if manual_marks is not None:
            return QuestionResult(key.question_id, key.question_type, answer, "graded", float(manual_marks),
                                  key.marks, key.section_id)
        if is_blank(answer):
            return QuestionResult(key.question_id, key.question_type, answer, "unanswered", 0.0, key.marks,
                                  key.section_id)
        return QuestionResult(key.question_id, key.question_type, answer, "pending", 0.0, key.marks, key.section_id)
    if is_blank(answer):
        return QuestionResult(key.question_id, key.question_type, answer, "unanswered", 0.0, key.marks, key.section_id)
    if is_correct(key, answer):
        return QuestionResult(key.question_id, key.question_type, answer, "correct", key.marks, key.marks,
                              key.section_id)
    penalty = -round(key.marks * key.negative_ratio, 6) if negative_marking else 0.0
    return QuestionResult(key.question_id, key.question_type, answer, "incorrect", penalty or 0.0, key.marks,
                          key.section_id)


def grade(keys: list[KeyEntry], answers: dict[str, Any], *, negative_marking: bool,
          manual: dict[str, float] | None = None) -> GradeResult:
    """Grade every question of the paper. ``answers`` maps question_id → saved answer;
    ``manual`` maps question_id → marks given by a Client Admin."""
    manual = manual or {}
    results = [grade_one(k, answers.get(k.question_id), negative_marking, manual.get(k.question_id)) for k in keys]
    raw = round(sum(r.marks_awarded for r in results), 6)
    total = round(sum(k.marks for k in keys), 6)
    pending = sum(1 for r in results if r.status == "pending")
    return GradeResult(score=max(0.0, raw), raw_score=raw, total_marks=total, pending_manual=pending, results=results)
