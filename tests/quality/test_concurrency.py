"""Exactly-once under parallel load for the transitions not covered in the service suites
(docs/quality.md lists where every other one is tested): rate limits, campaign send and
cancel, certificate issue, invoice number allocation.

Parallel calls run the domain layer in threads against moto with ``atomic_moto`` (each
DynamoDB request evaluated atomically, as DynamoDB does; the requests themselves interleave
freely). The HTTP adapter is not used in threads: Powertools keeps per-request state on the
module-level resolver, and a Lambda container serves one request at a time anyway.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from lambdakit.errors import ApiError
from tests.campaigns.conftest import _make_campaign
from tests.internships.journey.helpers import make_domain, sign

ACCOUNT = "acct-test"


def _outcomes(fn, n: int, workers: int = 16) -> list:
    def call(i):
        try:
            return ("ok", fn(i))
        except ApiError as e:
            return (e.status, e.code)

    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(call, range(n)))


def test_rate_limit_never_admits_more_than_the_limit(campaigns_app, atomic_moto):
    from campaigns.settings import settings
    from lambdakit import ratelimit
    from lambdakit.ddb import Table

    table = Table(settings().table_name)
    out = _outcomes(lambda i: ratelimit.hit(table, "quality-subject", 10, 60), 60)
    decisions = [d for kind, d in out if kind == "ok"]
    assert len(decisions) == 60
    assert sum(d.allowed for d in decisions) == 10
    assert sorted(d.remaining for d in decisions if d.allowed) == list(range(10))
    # another subject has its own window
    assert ratelimit.hit(table, "other-subject", 10, 60).allowed


def test_parallel_campaign_send_then_cancel_happen_once(campaigns_app, make_key, atomic_moto):
    import boto3

    from campaigns.campaign import service
    from campaigns.campaign.models import SendRequest
    from campaigns.settings import settings

    c = campaigns_app.campaigns
    c.default_headers = {"Authorization": f"Bearer {make_key(role='admin')}"}
    try:
        cid = _make_campaign(c, schedule={"type": "scheduled", "date": "2099-01-01T00:00:00Z"})
    finally:
        c.default_headers = {}
    sends = _outcomes(lambda i: service.request_send(ACCOUNT, cid, SendRequest(confirm=True)), 20)
    assert len([o for o in sends if o[0] == "ok"]) == 1, sends
    assert all(o[0] == 409 for o in sends if o[0] != "ok"), sends
    cancels = _outcomes(lambda i: service.cancel(ACCOUNT, cid), 20)
    ok = [o for o in cancels if o[0] == "ok"]
    assert len(ok) == 1 and ok[0][1]["previous_status"] == "scheduled", cancels
    assert all(o[0] == 409 for o in cancels if o[0] != "ok"), cancels
    assert service.view(ACCOUNT, cid)["status"] == "cancelled"
    # a scheduled send enqueues nothing; nothing was started twice
    q = boto3.client("sqs").get_queue_attributes(QueueUrl=settings().send_queue_url,
                                                   AttributeNames=["ApproximateNumberOfMessages"])
    assert int(q["Attributes"]["ApproximateNumberOfMessages"]) == 0


def _principal(user):
    from internships.auth import Principal

    return Principal(user.id, user.role, user.email, user.name, frozenset())


def _pending_enrollment(api, student, domain) -> dict:
    r = api.post("/api/enrollments/create", headers=student.headers, json={"domainId": domain["id"], "duration": 1})
    assert r.status == 200, r.text
    return r.json()["enrollment"]


def test_parallel_payments_allocate_distinct_consecutive_invoice_numbers(internships_app, intern_users, intern_seed,
                                                                         atomic_moto):
    from internships.enrollments import service
    from internships.enrollments.models import VerifyPayment

    api = internships_app.internships
    domain = make_domain(api, intern_users.staff("admin"))
    students = [intern_users.student() for _ in range(8)]
    enrollments = [_pending_enrollment(api, s, domain) for s in students]
    key = intern_seed["payments"]["key_secret"]

    def pay(i):
        e, s = enrollments[i % 8], students[i % 8]
        order, pid = e["order"]["orderId"], f"pay_QUAL{i % 8:010d}"
        body = VerifyPayment(enrollmentId=e["id"], orderId=order, paymentId=pid, signature=sign(key, order, pid))
        return service.verify_payment(_principal(s), body)["enrollment"]["invoiceNumber"]

    out = _outcomes(pay, 16)  # every enrollment verified twice, in parallel
    numbers = [v for kind, v in out if kind == "ok"]
    assert len(numbers) == 16, out
    distinct = sorted(set(numbers))
    assert len(distinct) == 8  # one number per enrollment, the retry gets the same one
    seq = sorted(int(n.rsplit("/", 1)[-1]) for n in distinct)
    assert seq == list(range(seq[0], seq[0] + 8))  # consecutive: no gaps, no duplicates


def test_parallel_certificate_issue_once(internships_app, intern_users, intern_seed, atomic_moto):
    from internships.admin_review import service as review
    from tests.internships.journey.helpers import enroll_and_pay

    api = internships_app.internships
    admin = intern_users.staff("super_admin")
    domain = make_domain(api, admin)
    st = intern_users.student()
    e = enroll_and_pay(api, st, domain, intern_seed)
    out = _outcomes(lambda i: review.approve(_principal(admin), e["id"], True), 12)
    certs = [v for kind, v in out if kind == "ok"]
    assert len(certs) + len([o for o in out if o[0] == 409]) == 12, out
    ids = {c[0]["certificateId"] for c in certs}
    assert len(ids) == 1, ids
    assert sum(1 for c in certs if c[1]) == 1  # exactly one call issued it
    mine = api.get("/api/certificates/my-certificates", headers=st.headers).json()["certificates"]
    assert [x["certificateId"] for x in mine] == list(ids)
