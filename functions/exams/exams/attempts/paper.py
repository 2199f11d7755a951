"""Per-attempt paper: question/option order, section windows and deadlines (pure).

The order is drawn once when the attempt starts and stored on the attempt, so a
reload shows the same order. All times are server times (epoch seconds).
"""
from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass
from typing import Any

from lambdakit import clock

_rng = random.SystemRandom()

OPTION_TYPES = frozenset({"mcq", "multi_select"})


def plan_sections(test: dict) -> list[dict]:
    """The test's sections, or one implicit section holding ``question_ids``."""
    secs = test.get("sections") or []
    if secs:
        return [dict(s) for s in secs]
    return [{"id": "main", "title": test.get("test_name") or "Main", "question_ids": list(test.get("question_ids") or []),
             "duration_minutes": None, "negative_marks_ratio": None,
             "shuffle_questions": bool(test.get("shuffle")), "shuffle_options": bool(test.get("shuffle_options")),
             "lock_navigation": False, "implicit": True}]


def total_seconds(test: dict) -> int:
    """Attempt duration: the sum of section durations when sections are timed, else the test timer."""
    secs = test.get("sections") or []
    if secs and all(s.get("duration_minutes") for s in secs):
        return int(sum(float(s["duration_minutes"]) for s in secs) * 60)
    return int(float(test.get("timer") or 0) * 60)


def build_attempt_paper(test: dict, question_types: dict[str, str], *, rng: random.Random | None = None
                        ) -> tuple[list[dict], list[dict]]:
    """(sections with server windows, question order) for a new attempt.

    ``sections``: ``[{id, title, start_offset, end_offset, lock_navigation, question_ids}]`` with
    offsets in seconds from the start (``end_offset`` None when sections are untimed).
    ``order``: ``[{question_id, section_id, options}]`` where ``options`` is the shuffled list of
    option letters (original letters are kept as the answer keys).
    """
    r = rng or _rng
    timed = bool(test.get("sections")) and all(s.get("duration_minutes") for s in test["sections"])
    sections_out: list[dict] = []
    order: list[dict] = []
    offset = 0
    for s in plan_sections(test):
        qids = list(s.get("question_ids") or [])
        if s.get("shuffle_questions") if s.get("shuffle_questions") is not None else test.get("shuffle"):
            r.shuffle(qids)
        dur = int(float(s["duration_minutes"]) * 60) if timed else None
        sections_out.append({"id": s["id"], "title": s.get("title") or s["id"], "start_offset": offset if timed else 0,
                             "end_offset": offset + dur if dur is not None else None,
                             "lock_navigation": bool(s.get("lock_navigation")), "question_ids": qids})
        if dur is not None:
            offset += dur
        shuffle_opts = s.get("shuffle_options")
        if shuffle_opts is None:
            shuffle_opts = test.get("shuffle_options")
        for qid in qids:
            qt = question_types.get(qid, "mcq")
            opts = ["A", "B", "C", "D"] if qt in OPTION_TYPES else (["A", "B"] if qt == "true_false" else [])
            if shuffle_opts and qt in OPTION_TYPES:
                r.shuffle(opts)
            order.append({"question_id": qid, "section_id": s["id"], "options": opts})
    return sections_out, order


@dataclass(frozen=True)
class SectionState:
    section: dict
    index: int
    opens_at: float
    closes_at: float | None


def section_of(attempt: dict, question_id: str) -> tuple[int, dict] | None:
    for i, s in enumerate(attempt.get("sections") or []):
        if question_id in (s.get("question_ids") or []):
            return i, s
    return None


def section_close_ts(attempt: dict, section: dict) -> float | None:
    if section.get("end_offset") is None:
        return None
    return float(attempt["started_ts"]) + float(section["end_offset"])


def lock_reason(attempt: dict, index: int, section: dict, now: float, grace: float) -> str | None:
    """Why saving into this section is refused now, or None.

    * ``time_expired``: a timed section closes at start + cumulative durations (+ grace);
    * ``navigation_locked``: the candidate moved past a section with ``lock_navigation``.
    """
    close = section_close_ts(attempt, section)
    if close is not None and now > close + grace:
        return "time_expired"
    if section.get("lock_navigation") and int(attempt.get("furthest_section") or 0) > index:
        return "navigation_locked"
    return None


def current_section_index(attempt: dict, now: float) -> int:
    """The section the server clock is in (timed sections auto-advance), at least the furthest reached."""
    idx = int(attempt.get("furthest_section") or 0)
    secs = attempt.get("sections") or []
    for i, s in enumerate(secs):
        close = section_close_ts(attempt, s)
        if close is not None and now >= close and i + 1 < len(secs):
            idx = max(idx, i + 1)
    return idx


def remaining_seconds(deadline_ts: float, now: float) -> int:
    return max(0, int(deadline_ts - now))


def iso_at(ts: float) -> str:
    """A server time (epoch seconds) as the API's ISO 8601 UTC timestamp."""
    return clock.iso(dt.datetime.fromtimestamp(ts, tz=dt.timezone.utc))


def public_question(q: dict, options: list[str]) -> dict[str, Any]:
    """A question as a candidate sees it: no answer key, options in the attempt's order."""
    out = {"id": q["id"], "question_text": q.get("question_text"), "question_type": q.get("question_type"),
           "marks": q.get("marks")}
    if options:
        if q.get("question_type") == "true_false":
            out["options"] = [{"key": "A", "text": q.get("option_a") or "True"},
                              {"key": "B", "text": q.get("option_b") or "False"}]
        else:
            out["options"] = [{"key": k, "text": q.get(f"option_{k.lower()}")} for k in options
                              if q.get(f"option_{k.lower()}") not in (None, "")]
    return out
