"""Item statistics from folded histograms vs a hand-computed fixture and a direct (Moodle) reference."""
import math
import random

import pytest

from exams.analytics import itemstats as st


def fold(matrix, marks):
    test_item, items = {}, [dict() for _ in marks]
    for row in matrix:
        results = [{"question_id": f"q{i}", "marks_awarded": x, "status": "correct" if x == marks[i] else "incorrect",
                    "question_type": "mcq", "answer": "A"} for i, x in enumerate(row)]
        t_add, q_add = st.fold_increments(results)
        for k, v in t_add.items():
            test_item[k] = test_item.get(k, 0) + v
        for i in range(len(marks)):
            for k, v in q_add[f"q{i}"].items():
                items[i][k] = items[i].get(k, 0) + v
    return test_item, items


MATRIX = [[1, 1, 1], [1, 1, 0], [1, 0, 0], [0, 1, 0], [0, 0, 0]]


def test_hand_computed_fixture():
    test_item, items = fold(MATRIX, [1, 1, 1])
    s = [st.item_statistics(it, max_mark=1) for it in items]
    # Hand computation (sample variances, n-1 = 4):
    # item 1: var x = .3, var rest = .7, cov = .15, C_max = .4
    assert s[0]["facility_index"] == pytest.approx(60.0, abs=1e-6)
    assert s[0]["discrimination_index"] == pytest.approx(100 * 0.15 / math.sqrt(0.21), abs=1e-6)
    assert s[0]["discrimination_index"] == pytest.approx(32.7326835, abs=1e-6)
    assert s[0]["discriminative_efficiency"] == pytest.approx(37.5, abs=1e-6)
    assert s[1]["discrimination_index"] == pytest.approx(32.7326835, abs=1e-6)
    assert s[1]["discriminative_efficiency"] == pytest.approx(37.5, abs=1e-6)
    # item 3: var x = .2, var rest = .7, cov = .2, C_max = .2
    assert s[2]["facility_index"] == pytest.approx(20.0, abs=1e-6)
    assert s[2]["discrimination_index"] == pytest.approx(53.4522484, abs=1e-6)
    assert s[2]["discriminative_efficiency"] == pytest.approx(100.0, abs=1e-6)
    t = st.test_statistics(test_item, [x["variance"] for x in s], dichotomous=True)
    # totals 3,2,1,1,0: mean 1.4, var 1.3; alpha = 3/2 (1 - .8/1.3) = 0.576923077
    assert t["mean"] == pytest.approx(1.4, abs=1e-9)
    assert t["median"] == 1
    assert t["sd"] == pytest.approx(math.sqrt(1.3), abs=1e-9)
    assert t["cronbach_alpha"] == pytest.approx(0.576923077, abs=1e-6)
    assert t["kr20"] == pytest.approx(0.576923077, abs=1e-6)
    assert t["standard_error"] == pytest.approx(math.sqrt(0.55), abs=1e-6)  # sqrt(1-alpha) * sd


def reference(matrix, marks, mins):
    """Direct computation on raw arrays, as Moodle's calculator does."""
    n, k = len(matrix), len(marks)
    totals = [sum(r) for r in matrix]
    out = []
    for i in range(k):
        x = [r[i] for r in matrix]
        rest = [totals[j] - x[j] for j in range(n)]
        mx, mr = sum(x) / n, sum(rest) / n
        vx = sum((a - mx) ** 2 for a in x) / (n - 1)
        vr = sum((a - mr) ** 2 for a in rest) / (n - 1)
        c = sum((x[j] - mx) * (rest[j] - mr) for j in range(n)) / (n - 1)
        cmax = sum((a - mx) * (b - mr) for a, b in zip(sorted(x), sorted(rest), strict=False)) / (n - 1)
        out.append({"F": 100 * (mx - mins[i]) / (marks[i] - mins[i]), "D": 100 * c / math.sqrt(vx * vr) if vx and vr else None,
                    "DE": 100 * c / cmax if cmax > 1e-12 else None, "V": vx})
    mt = sum(totals) / n
    vt = sum((t - mt) ** 2 for t in totals) / (n - 1)
    alpha = k / (k - 1) * (1 - sum(o["V"] for o in out) / vt)
    return out, alpha, math.sqrt(vt), math.sqrt(1 - alpha) * math.sqrt(vt)


def test_matches_direct_reference_with_negative_marking():
    rnd = random.Random(7)
    marks = [1, 2, 1, 4, 1, 2]
    matrix = []
    for _ in range(137):
        ability = rnd.random()
        row = []
        for m in marks:
            u = rnd.random()
            row.append(m if u < ability else (-0.25 * m if u < ability + 0.3 else 0))
        matrix.append(row)
    test_item, items = fold(matrix, marks)
    mins = [-0.25 * m for m in marks]
    ref, alpha, sd, se = reference(matrix, marks, mins)
    stats = [st.item_statistics(it, max_mark=m, min_mark=lo) for it, m, lo in zip(items, marks, mins, strict=False)]
    for got, exp in zip(stats, ref, strict=False):
        assert got["facility_index"] == pytest.approx(exp["F"], abs=1e-6)
        assert got["discrimination_index"] == pytest.approx(exp["D"], abs=1e-6)
        assert got["discriminative_efficiency"] == pytest.approx(exp["DE"], abs=1e-6)
    t = st.test_statistics(test_item, [s["variance"] for s in stats], dichotomous=False)
    assert t["cronbach_alpha"] == pytest.approx(alpha, abs=1e-6)
    assert t["kr20"] is None
    assert t["sd"] == pytest.approx(sd, abs=1e-6)
    assert t["standard_error"] == pytest.approx(se, abs=1e-6)


def test_empty_and_single_attempt_are_safe():
    assert st.item_statistics({}, max_mark=1)["facility_index"] is None
    test_item, items = fold([[1, 0]], [1, 1])
    s = st.item_statistics(items[0], max_mark=1)
    assert s["facility_index"] == 100 and s["discrimination_index"] is None
    assert st.test_statistics(test_item, [0, 0], dichotomous=True)["cronbach_alpha"] is None
