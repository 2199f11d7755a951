"""Item analysis from running sums (Moodle quiz-statistics definitions).

The AnalyticsWorker folds every submitted attempt into:

* one test item: ``n``, the running sums ``t_s`` = ΣT and ``t_s2`` = ΣT² of the total (raw)
  scores and their histogram ``t:<T>`` → count;
* one item per question: ``n``, ``correct``, option picks ``o:<letter>`` (real options only),
  the running sums ``sx``, ``sx2``, ``sr``, ``sr2``, ``sxr`` of the item score x and the rest
  score r = T − x, and the marginal histograms ``x:<x>`` and ``r:<r>``.

Every sum Moodle needs comes from the running sums (exact); the histograms give the median
and the sorted pairing behind the maximum covariance of the discriminative efficiency.

Bound (issue 23 rule 3): a histogram key is a score value, and marks are free numbers (manual
marks, fractional marks, negative marking), so the number of distinct values is not bounded by
the test. Values are therefore put on a grid: ``t:`` and ``r:`` on a step of at most 1/2000 of
the test's maximum (``HIST_BINS``), ``x:`` on a step of at most 1/100 of the question's marks
(``ITEM_BINS``), the step being 1, 2, 2.5 or 5 × 10^k, so whole, half and quarter marks stay
exact. An item then holds at most ~4,000 ``t:``/``r:`` keys (the range runs from −max with
negative marking to +max) and ~200 ``x:`` keys (≈ 90 KB), whatever the number of attempts.
Items folded before the running sums existed (``c:<x>:<r>`` joint histogram) are still read.

Definitions (https://docs.moodle.org/dev/Quiz_statistics_calculations):

* facility index F = 100·(x̄ − x_min)/(x_max − x_min)
* discrimination index D = 100·r(x, X) with X the rest of the test (corrected item–rest correlation)
* discriminative efficiency DE = 100·C(x, X)/C_max(x, X), C_max pairing the sorted x with the sorted X
* Cronbach's alpha α = k/(k−1)·(1 − Σ V(x_i)/V(T)) (equals KR-20 when all items are right/wrong)
* SD = sample standard deviation of T; error ratio ER = √(1 − α); standard error SE = ER·SD
"""
from __future__ import annotations

import math
from typing import Any, Iterable

from ..grading import OPTION_LETTERS, norm_letter, norm_letters, norm_true_false


def num_key(x: float) -> str:
    """Stable text form of a score value for histogram attribute names."""
    v = round(float(x), 6)
    if v == 0:
        v = 0.0
    return repr(v).replace(".", "_")  # no dots: attribute names, not document paths


# ------------------------------------------------------------------ folding
def picked_options(question_type: str | None, answer: Any) -> tuple[str, ...]:
    """The option letters an answer picks, only real ones (``A``–``D``; true/false as ``A``/``B``).
    Issue 23 rule 3: a candidate's free text in an option answer never becomes an ``o:<text>``
    counter, so a question's statistics item holds at most four option counters."""
    if answer in (None, "", []):
        return ()
    if question_type == "true_false":
        tf = norm_true_false(answer)
        return (tf,) if tf else ()
    if question_type == "mcq":
        letter = norm_letter(answer)
        return (letter,) if letter in OPTION_LETTERS else ()
    if question_type == "multi_select":
        return tuple(x for x in norm_letters(answer) if x in OPTION_LETTERS)
    return ()


HIST_BINS = 2000
ITEM_BINS = 100
_EXACT = 1e-6  # the grid when the maximum is unknown: values as stored (6 decimals)


def grid_step(span: float, bins: int) -> float:
    """The smallest step of 1, 2, 2.5 or 5 × 10^k that cuts ``span`` into at most ``bins`` bins."""
    if span <= 0:
        return _EXACT
    raw = span / bins
    e = math.floor(math.log10(raw))
    for k in (e, e + 1):
        for m in (1, 2, 2.5, 5):
            step = round(m * 10.0 ** k, 12)
            if step >= raw * (1 - 1e-12):
                return max(step, _EXACT)
    return 10.0 ** (e + 1)


def on_grid(v: float, step: float) -> float:
    return round(round(v / step) * step, 6)


#: Products of two 6-decimal values are exact at 12 decimals (and short enough for DynamoDB's
#: 38 significant digits when summed by ADD).
def fold_increments(results: list[dict]) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """Counter increments of one graded attempt: (test-level ADDs, {question_id: ADDs})."""
    total = round(sum(float(r.get("marks_awarded") or 0) for r in results), 6)
    top = sum(float(r.get("max_marks") or 0) for r in results)
    t_step = grid_step(top, HIST_BINS)
    test_add: dict[str, float] = {"n": 1, f"t:{num_key(on_grid(total, t_step))}": 1, "t_s": total,
                                  "t_s2": round(total * total, 12)}
    per_q: dict[str, dict[str, float]] = {}
    for r in results:
        x = round(float(r.get("marks_awarded") or 0), 6)
        rest = round(total - x, 6)
        m = float(r.get("max_marks") or 0)
        add: dict[str, float] = {
            "n": 1, "sx": x, "sx2": round(x * x, 12), "sr": rest,
            "sr2": round(rest * rest, 12), "sxr": round(x * rest, 12),
            f"x:{num_key(on_grid(x, grid_step(m, ITEM_BINS)))}": 1,
            f"r:{num_key(on_grid(rest, grid_step(top - m, HIST_BINS) if top else _EXACT))}": 1}
        if r.get("status") == "correct":
            add["correct"] = 1
        if r.get("status") in ("unanswered",):
            add["unanswered"] = 1
        for letter in picked_options(r.get("question_type"), r.get("answer")):
            add[f"o:{letter}"] = add.get(f"o:{letter}", 0) + 1
        per_q[r["question_id"]] = add
    return test_add, per_q


def _hist(item: dict, prefix: str) -> Iterable[tuple[list[float], int]]:
    for k, v in item.items():
        if k.startswith(prefix):
            yield [float(p.replace("_", ".")) for p in k[len(prefix):].split(":")], int(v)


# ------------------------------------------------------------------ maths
def _var(n: int, s: float, s2: float) -> float:
    """Sample variance from Σ and Σ² (n ≥ 2)."""
    if n < 2:
        return 0.0
    return max(0.0, (s2 - s * s / n) / (n - 1))


def _cov(n: int, sx: float, sy: float, sxy: float) -> float:
    if n < 2:
        return 0.0
    return (sxy - sx * sy / n) / (n - 1)


def _sorted_pair_sum(xs: list[tuple[float, int]], ys: list[tuple[float, int]]) -> float:
    """Σ x_(i)·y_(i) pairing both multisets in ascending order (run-length encoded)."""
    xs = sorted(xs)
    ys = sorted(ys)
    i = j = 0
    xr = xs[0][1] if xs else 0
    yr = ys[0][1] if ys else 0
    total = 0.0
    while i < len(xs) and j < len(ys):
        take = min(xr, yr)
        total += take * xs[i][0] * ys[j][0]
        xr -= take
        yr -= take
        if xr == 0:
            i += 1
            xr = xs[i][1] if i < len(xs) else 0
        if yr == 0:
            j += 1
            yr = ys[j][1] if j < len(ys) else 0
    return total


def item_statistics(item: dict, *, max_mark: float, min_mark: float = 0.0) -> dict[str, Any]:
    """Moodle item statistics of one question from its stored histogram."""
    xs: dict[float, int]
    rs: dict[float, int]
    if "sx" in item:
        n = int(item.get("n") or 0)
        sx, sx2, sr, sr2, sxr = (float(item.get(k) or 0) for k in ("sx", "sx2", "sr", "sr2", "sxr"))
        xs = {vals[0]: c for vals, c in _hist(item, "x:")}
        rs = {vals[0]: c for vals, c in _hist(item, "r:")}
    else:  # folded before the running sums: the joint histogram c:<x>:<r>
        joint = [(vals[0], vals[1], c) for vals, c in _hist(item, "c:")]
        n = sum(c for _, _, c in joint)
        sx = sum(x * c for x, _, c in joint)
        sx2 = sum(x * x * c for x, _, c in joint)
        sr = sum(r * c for _, r, c in joint)
        sr2 = sum(r * r * c for _, r, c in joint)
        sxr = sum(x * r * c for x, r, c in joint)
        xs, rs = {}, {}
        for x, r, c in joint:
            xs[x] = xs.get(x, 0) + c
            rs[r] = rs.get(r, 0) + c
    out: dict[str, Any] = {"attempts": n, "correct": int(item.get("correct") or 0),
                           "unanswered": int(item.get("unanswered") or 0),
                           "correct_ratio": round(int(item.get("correct") or 0) / n, 6) if n else None,
                           "option_counts": {k[2:]: int(v) for k, v in sorted(item.items()) if k.startswith("o:")}}
    if not n:
        out.update(facility_index=None, standard_deviation=None, discrimination_index=None,
                   discriminative_efficiency=None, mean=None, variance=0.0)
        return out
    mean = sx / n
    rng = max_mark - min_mark
    vx, vr = _var(n, sx, sx2), _var(n, sr, sr2)
    cxr = _cov(n, sx, sr, sxr)
    out["mean"] = mean
    out["variance"] = vx
    out["facility_index"] = 100.0 * (mean - min_mark) / rng if rng > 0 else None
    out["standard_deviation"] = 100.0 * math.sqrt(vx) / rng if rng > 0 else None
    out["discrimination_index"] = 100.0 * cxr / math.sqrt(vx * vr) if vx > 0 and vr > 0 else None
    cmax = (_sorted_pair_sum(list(xs.items()), list(rs.items())) - sx * sr / n) / (n - 1) if n > 1 else 0.0
    out["discriminative_efficiency"] = 100.0 * cxr / cmax if cmax > 1e-12 else None
    out["difficulty"] = difficulty_band(out["facility_index"])
    return out


def difficulty_band(facility: float | None) -> str | None:
    """Moodle's facility bands, simplified: ≥ 80 easy, ≥ 35 medium (20–80 is 'about right'), < 35 hard."""
    if facility is None:
        return None
    if facility >= 80:
        return "easy"
    if facility >= 35:
        return "medium"
    return "hard"


def test_statistics(test_item: dict, item_variances: list[float], *, dichotomous: bool) -> dict[str, Any]:
    hist = [(vals[0], c) for vals, c in _hist(test_item, "t:")]
    n = sum(c for _, c in hist)
    k = len(item_variances)
    if not n:
        return {"n": 0, "mean": None, "median": None, "sd": None, "cronbach_alpha": None, "kr20": None,
                "error_ratio": None, "standard_error": None}
    if "t_s" in test_item:  # exact running sums (the histogram is on a grid)
        s, s2 = float(test_item.get("t_s") or 0), float(test_item.get("t_s2") or 0)
    else:
        s = sum(t * c for t, c in hist)
        s2 = sum(t * t * c for t, c in hist)
    vt = _var(n, s, s2)
    sd = math.sqrt(vt)
    alpha = None
    if k > 1 and vt > 0 and n > 1:
        alpha = (k / (k - 1)) * (1 - sum(item_variances) / vt)
    er = math.sqrt(1 - alpha) if alpha is not None and alpha <= 1 and alpha >= 0 else None
    return {
        "n": n, "mean": s / n, "median": _median(hist, n), "sd": sd,
        "cronbach_alpha": alpha, "kr20": alpha if dichotomous else None,
        "error_ratio": er, "standard_error": er * sd if er is not None else None,
    }


def _median(hist: list[tuple[float, int]], n: int) -> float:
    ordered = sorted(hist)

    def at(idx: int) -> float:
        seen = 0
        for v, c in ordered:
            seen += c
            if idx < seen:
                return v
        return ordered[-1][0]

    return at((n - 1) // 2) if n % 2 else (at(n // 2 - 1) + at(n // 2)) / 2
