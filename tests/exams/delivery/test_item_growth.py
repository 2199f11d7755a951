"""Issue 23 rule 3: items that grow with use are bounded or split (exams). Each test drives the
routes past where the old layout grew an item and reads the items back."""
from __future__ import annotations

from lambdakit.ddbcalls import MAX_ITEM_BYTES, size_of
from tests.exams.delivery.delivery_helpers import drain_analytics, mcq
from tests.exams.delivery.test_unit_itemstats import reference


def _item(pk: str, sk: str) -> dict | None:
    from exams.store import table

    return table().get(pk, sk, consistent=True)


def _bytes(item: dict) -> int:
    return sum(len(k.encode()) + size_of(v) for k, v in item.items())


def test_long_answers_stay_in_answer_items_not_on_the_attempt(tenant):
    """30 essays of 20,000 two-byte characters (1.2 MB of answers): the old ``results`` copied every
    answer onto the attempt item, so the submit failed with 413 and the attempt could never close."""
    app, ca, st = tenant.app, tenant.ca, tenant.students[0]
    qs = [tenant.question(question_text=f"Essay {i}", question_type="subjective", marks=5) for i in range(30)]
    short = tenant.question(**mcq("Pick", correct="B"))
    t = tenant.test([q["id"] for q in qs] + [short["id"]], show_results_after_submission=True)
    a = tenant.start(t)
    essays = {q["id"]: ("é" * 19_990) + f"{i:010d}" for i, q in enumerate(qs)}
    r = app.exams.post("/api/attempt-answers", headers=st.headers, json=[
        *({"attempt_id": a["id"], "question_id": qid, "selected_option": text} for qid, text in essays.items()),
        {"attempt_id": a["id"], "question_id": short["id"], "selected_option": "B"}])
    assert r.status == 200, r.text
    r = app.exams.post(f"/api/attempts/{a['id']}/submit", headers=st.headers)
    assert r.status == 200, r.text
    meta = _item(f"ATTEMPT#{a['id']}", "A#META")
    assert meta["status"] == "submitted"
    assert _bytes(meta) < 100_000 < MAX_ITEM_BYTES
    stored = {x["question_id"]: x for x in meta["results"]}
    assert all("answer" not in stored[qid] for qid in essays)
    assert stored[short["id"]]["answer"] == "B"
    # Every reader joins the long answers back.
    d = app.exams.get(f"/api/attempts/{a['id']}", headers=ca.headers).json()["data"]
    got = {x["question_id"]: x["answer"] for x in d["results"]}
    assert got == {**essays, short["id"]: "B"}
    r = app.exams.put(f"/api/attempts/{a['id']}/grades", headers=ca.headers,
                      json={"grades": [{"question_id": qid, "marks": 4} for qid in essays]})
    assert r.status == 200, r.text
    body = r.json()["data"]
    assert body["score"] == 121 and {x["question_id"]: x["answer"] for x in body["results"]}[qs[0]["id"]] == essays[qs[0]["id"]]
    assert _bytes(_item(f"ATTEMPT#{a['id']}", "A#META")) < 100_000
    r = app.exams.get(f"/api/attempts/{a['id']}/report", headers=ca.headers)
    assert r.status == 200, r.text


def test_free_text_in_option_answers_never_becomes_a_counter(tenant):
    """A multi-select answer of 2,000 made-up letters used to add 2,000 ``o:<text>`` counters to
    the question's statistics item per attempt (≈ 14 attempts to 400 KB, then the fold failed)."""
    app, st = tenant.app, tenant.students[0]
    ms = tenant.question(question_text="Pick two", question_type="multi_select", option_a="a", option_b="b",
                         option_c="c", option_d="d", correct_answers=["A", "C"])
    t = tenant.test([ms["id"]])
    junk = ",".join(f"Z{i:07d}" for i in range(2000))
    for answer in ("A," + junk, "a, zz,QQ ,WWW"):  # a long one (kept in its answer item) and a short one
        a = tenant.start(t)
        r = app.exams.post("/api/attempt-answers", headers=st.headers,
                           json=[{"attempt_id": a["id"], "question_id": ms["id"], "selected_option": answer}])
        assert r.status == 200, r.text
        assert app.exams.post(f"/api/attempts/{a['id']}/submit", headers=st.headers).status == 200
    assert drain_analytics(app) >= 2
    istat = _item(f"TEST#{t['id']}", f"ISTAT#{ms['id']}")
    assert istat["n"] == 2
    assert sorted(k for k in istat if k.startswith("o:")) == ["o:A"]
    assert _bytes(istat) < 400


def test_folder_counters_are_items_of_their_own(tenant):
    """Folder ids are free text: one counter per folder on the tenant's counter item grew it
    with every new folder name (and never shrank). Now each folder has its own item."""
    app, ca = tenant.app, tenant.ca
    folders = [f"folder-{i}-" + "x" * 100 for i in range(12)]
    for f in folders:
        tenant.question(**mcq(f"In {f}", folder_id=f))
    tenant.test([], publish=False, folder_id=folders[0])
    for prefix in ("QCOUNT", "TCOUNT"):
        meta = _item(f"{prefix}#{tenant.cid}", "META")
        assert not [k for k in meta if k.startswith("f:")], meta
    assert _item(f"QCOUNT#{tenant.cid}", "META")["all"] == 12
    assert _item(f"QCOUNT#{tenant.cid}", f"F#{folders[3]}")["n"] == 1
    assert _item(f"TCOUNT#{tenant.cid}", f"F#{folders[0]}")["n"] == 1
    r = app.exams.get("/api/questions", headers=ca.headers, query={"folder_id": folders[3]})
    assert r.status == 200 and [q["question_text"] for q in r.json()["data"]] == [f"In {folders[3]}"]
    assert r.json()["pagination"]["total"] == 1
    r = app.exams.get("/api/tests", headers=ca.headers, query={"folder_id": folders[0]})
    assert r.status == 200 and r.json()["pagination"]["total"] == 1


def test_csv_import_over_many_folders_fits_its_transactions(tenant):
    """A 150-row import spread over 150 folders: the per-folder counters make the transactions
    smaller, never larger than 100 items; rollback takes every counter back to zero."""
    app, ca = tenant.app, tenant.ca
    rows = ["question_text,question_type,option_a,option_b,option_c,option_d,correct_answer,marks,difficulty,folder_id"]
    rows += [f"Q{i},mcq,a,b,c,d,A,1,easy,f{i}" for i in range(150)]
    b = "XbOuNdArY"
    body = (f'--{b}\r\nContent-Disposition: form-data; name="file"; filename="q.csv"\r\n'
            f'Content-Type: text/csv\r\n\r\n' + "\n".join(rows) + f"\n\r\n--{b}--\r\n").encode()
    r = app.exams.post("/api/questions/import", body=body,
                       headers={**ca.headers, "content-type": f"multipart/form-data; boundary={b}"})
    assert r.status == 201, r.text
    batch = r.json()["data"]["import_batch_id"]
    assert _item(f"QCOUNT#{tenant.cid}", "META")["all"] == 150
    assert _item(f"QCOUNT#{tenant.cid}", "F#f149")["n"] == 1
    r = app.exams.delete("/api/questions", headers=ca.headers, query={"import_batch_id": batch})
    assert r.status == 200, r.text
    assert _item(f"QCOUNT#{tenant.cid}", "META")["all"] == 0
    assert _item(f"QCOUNT#{tenant.cid}", "F#f7")["n"] == 0


def test_a_test_holds_at_most_500_questions_across_sections(tenant):
    app, ca = tenant.app, tenant.ca
    t = tenant.test([], publish=False)
    sections = [{"id": f"s{n}", "title": f"S{n}", "question_ids": [f"q{n}-{i}" for i in range(300)]}
                for n in range(2)]
    r = app.exams.put(f"/api/tests/{t['id']}", headers=ca.headers, json={"sections": sections})
    assert r.status == 400, r.text
    err = r.json()
    assert err["error"] == "INVALID_TEST_CONFIGURATION"
    assert err["details"] == {"reason": "too_many_questions", "limit": 500, "requested": 600}
    after = _item(f"TEST#{t['id']}", "META")
    assert not after.get("sections") and after["version"] == t.get("version", after["version"])
    r = app.exams.post("/api/tests", headers=ca.headers,
                       json={"test_name": "Too big", "timer": 30, "sections": sections})
    assert r.status == 400 and r.json()["details"]["reason"] == "too_many_questions"


def test_top_organisations_are_one_item_per_client(tenant):
    app, st = tenant.app, tenant.students[0]
    q = tenant.question(**mcq("One"))
    t = tenant.test([q["id"]])
    a = tenant.start(t)
    assert app.exams.post(f"/api/attempts/{a['id']}/submit", headers=st.headers).status == 200
    drain_analytics(app)
    assert _item("ORGRANK", f"C#{tenant.cid}")["n"] == 1
    assert _item("ORGRANK", "GLOBAL") is None
    d = app.exams.get("/api/stats", headers=tenant.users.super_admin().headers).json()["data"]
    assert {"client_id": tenant.cid, "name": "Acme", "submitted_attempts": 1} in d["top_organisations"]


def test_statistics_items_stay_bounded_whatever_the_marks():
    """Histogram keys are score values. With free marks (manual grades, fractional marks) every
    attempt could add a new total ``t:<T>`` and a new ``c:<x>:<r>`` per question: 25,000 attempts
    with distinct totals put the test's statistics item past 400 KB and the fold then failed for
    good. Folding now keeps running sums (exact) and histograms on a grid (bounded)."""
    import math
    import random

    from exams.analytics import itemstats as st

    rnd = random.Random(23)
    marks = [1, 2.5, 3.7, 10, 0.3, 7]
    test_item: dict = {}
    items: list[dict] = [{} for _ in marks]
    matrix = []
    for _ in range(6000):
        row = [round(rnd.uniform(0, m), 6) for m in marks]  # manual marks: any value up to the maximum
        matrix.append(row)
        results = [{"question_id": f"q{i}", "marks_awarded": x, "max_marks": marks[i], "status": "graded",
                    "question_type": "subjective"} for i, x in enumerate(row)]
        t_add, q_add = st.fold_increments(results)
        for k, v in t_add.items():
            test_item[k] = test_item.get(k, 0) + v
        for i, it in enumerate(items):
            for k, v in q_add[f"q{i}"].items():
                it[k] = it.get(k, 0) + v
    assert len([k for k in test_item if k.startswith("t:")]) <= st.HIST_BINS + 1
    assert _bytes(test_item) < 100_000
    for it in items:
        assert len([k for k in it if k.startswith("r:")]) <= st.HIST_BINS + 1
        assert len([k for k in it if k.startswith("x:")]) <= st.ITEM_BINS + 1
        assert _bytes(it) < 100_000
    # The sums stay exact: facility and discrimination equal the direct computation.
    n = len(matrix)
    totals = [sum(r) for r in matrix]
    for i, (m, ref) in enumerate(zip(marks, reference(matrix, marks, [0.0] * len(marks))[0], strict=True)):
        got = st.item_statistics(items[i], max_mark=m)
        assert math.isclose(got["facility_index"], ref["F"], abs_tol=1e-6)
        assert math.isclose(got["discrimination_index"], ref["D"], abs_tol=1e-6)
        assert math.isclose(got["discriminative_efficiency"], ref["DE"], rel_tol=0.05, abs_tol=0.5)
    t = st.test_statistics(test_item, [0.0] * len(marks), dichotomous=False)
    mt = sum(totals) / n
    assert math.isclose(t["mean"], mt, abs_tol=1e-6)
    assert math.isclose(t["sd"], math.sqrt(sum((v - mt) ** 2 for v in totals) / (n - 1)), abs_tol=1e-6)
    assert abs(t["median"] - sorted(totals)[n // 2]) <= 2 * st.grid_step(sum(marks), st.HIST_BINS)


def test_whole_and_quarter_marks_stay_exact_on_the_grid():
    from exams.analytics import itemstats as st

    assert st.grid_step(100, st.HIST_BINS) == 0.05 and st.grid_step(500, st.HIST_BINS) == 0.25
    assert st.grid_step(4000, st.HIST_BINS) == 2 and st.grid_step(5, st.ITEM_BINS) == 0.05
    assert st.on_grid(-3.25, 0.25) == -3.25 and st.on_grid(1 / 3, 0.05) == 0.35


def test_paper_and_key_of_a_large_test_are_cut_by_size(tenant):
    """60 fill-in questions of 5,000 three-byte characters with ten 1,000-character accepted texts:
    40 questions to a paper item (1.2 MB) and one key item (1.8 MB) were refused with 413 at
    publish. Now both are cut into items of at most 300 KB; grading reads the whole key."""
    from exams.store import table

    app, st = tenant.app, tenant.students[0]
    qs = [tenant.question(question_text=f"{i} " + "語" * 4990, question_type="fill_blank", marks=1,
                          correct_answers=[f"answer {i}"] + [f"{k} " + "語" * 995 for k in range(9)])
          for i in range(60)]
    t = tenant.test([q["id"] for q in qs], show_results_after_submission=True)
    items = table().query_all(f"TEST#{t['id']}", consistent=True)
    snap = [i for i in items if i["sk"].startswith(("KEY", "PAPER#"))]
    assert len([i for i in snap if i["sk"].startswith("KEY")]) > 1
    assert len([i for i in snap if i["sk"].startswith("PAPER#")]) > 2
    assert all(_bytes(i) < MAX_ITEM_BYTES for i in snap)
    assert sum(len(i.get("keys") or {}) for i in snap) == 60
    assert sum(len(i.get("questions") or []) for i in snap) == 60
    a = tenant.start(t)
    d = app.exams.get(f"/api/attempts/{a['id']}", headers=st.headers).json()["data"]
    assert len(d["questions"]) == 60
    r = app.exams.post("/api/attempt-answers", headers=st.headers, json=[
        {"attempt_id": a["id"], "question_id": qs[0]["id"], "selected_option": "answer 0"},
        {"attempt_id": a["id"], "question_id": qs[59]["id"], "selected_option": "answer 59"}])
    assert r.status == 200, r.text
    r = app.exams.post(f"/api/attempts/{a['id']}/submit", headers=st.headers)
    assert r.status == 200 and r.json()["data"]["score"] == 2, r.text
