"""Operability and least-privilege policy over the SAM templates (issues #18 and #17).

Every rule here reads the templates as the local runtime does (``local_runtime.stack``), so a
function, queue, table or schedule added later is held to the same rules. docs/operations.md
explains what each alarm means and, in "IAM decisions", the choices made.
"""
from __future__ import annotations

import importlib
import json
import re
from pathlib import Path

import pytest

from local_runtime.provision import provision
from local_runtime.stack import ROOT, Service, load_root
from local_runtime.testing import services

SVCS = services()
NAMES = sorted(SVCS)
TOPIC = {"Ref": "AlarmTopicArn"}
RETAIN_IF = {"Fn::If": ["RetainData", "Retain", "Delete"]}

#: Actions on which AWS allows no narrower resource than ``*``, with the reason. Nothing else may
#: use ``Resource: '*'``.
WILDCARD_ALLOWED = {
    "ses:GetAccount": "account-level call (sending quota): SES defines no resource type for it",
    "xray:PutTraceSegments": "X-Ray defines no resource types for trace ingestion",
    "xray:PutTelemetryRecords": "X-Ray defines no resource types for trace ingestion",
    "cloudwatch:PutMetricData": "no resource-level permissions (only the cloudwatch:namespace condition)",
}

#: Buckets holding data that must outlive the stack (campaign buckets hold only expiring scratch objects).
DATA_BUCKETS = {"campaigns": set(), "exams": {"EvidenceBucket"}, "internships": {"FilesBucket"}}

#: Functions that only read business data, and the partition-key prefixes of the bookkeeping items
#: they may still write: rate-limit counters (``RL#``, lambdakit.ratelimit) and, in exams, the
#: authentication audit rows written on every authenticated request (``AUDIT#``, ``AUTHSEEN#``).
READ_ONLY = {
    ("campaigns", "HealthFunction"): {"RL"},
    ("campaigns", "AnalyticsFunction"): {"RL"},
    ("exams", "HealthFunction"): {"RL", "AUDIT", "AUTHSEEN"},
    ("exams", "AnalyticsFunction"): {"RL", "AUDIT", "AUTHSEEN", "JWKS"},
    ("exams", "ReportsFunction"): {"RL", "AUDIT", "AUTHSEEN", "JWKS"},
    ("internships", "HealthFunction"): set(),
    ("internships", "CatalogFunction"): set(),
}
READ_ACTIONS = {"dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:Query", "dynamodb:Scan",
                "dynamodb:DescribeTable", "dynamodb:ConditionCheckItem", "dynamodb:PartiQLSelect"}
WRITE_TEMPLATES = {"DynamoDBCrudPolicy", "DynamoDBWritePolicy", "AmazonDynamoDBFullAccessPolicy"}
SES_SEND = {"ses:SendEmail", "ses:SendRawEmail", "ses:SendTemplatedEmail", "ses:SendBulkEmail",
            "ses:SendBulkTemplatedEmail"}
SES_IDENTITY_ADMIN = re.compile(r"^ses:(Create|Delete|Put|Verify)\w*(Identity|Identities|Dkim)\w*$")

#: Business metrics (HELPER_RULES "Business metric names") and the dimension each is emitted with.
BUSINESS_METRICS = {
    "campaigns": {**{n: {"provider": "ses"} for n in ("EmailsSent", "EmailsDelivered", "EmailsBounced",
                                                       "EmailsComplained", "EmailsFailed", "EmailsSuppressed")},
                  **{n: {} for n in ("EmailOpens", "EmailClicks", "WebhookDeliveriesSucceeded",
                                     "WebhookDeliveriesFailed", "WebhookDeliveriesDeadLettered",
                                     "ImportRowsImported", "ImportRowsUpdated", "ImportRowsSkipped")}},
    "exams": {n: {} for n in ("AttemptsStarted", "AttemptsSubmitted", "AttemptsAutoSubmitted", "GradingDuration",
                              "ProctoringEvents", "RiskAutoSubmits", "GuestAttempts")},
    "internships": {**{n: {} for n in ("Registrations", "EnrollmentsCreated", "EnrollmentsActivated",
                                       "PaymentsVerified", "PaymentsRefused", "PaymentsDuplicated", "EmailsQueued",
                                       "EmailsSent", "EmailsFailed", "EmailsRetried", "CertificatesIssued")},
                    "SignIns": {"method": "password"}},
}


# ---------------------------------------------------------------- helpers
def _res(svc: Service) -> dict[str, dict]:
    return svc.template["Resources"]


def _props(r: dict) -> dict:
    return r.get("Properties") or {}


def _alarms(svc: Service) -> dict[str, dict]:
    return {lid: _props(r) for lid, r in svc.resources_of("AWS::CloudWatch::Alarm").items()}


def _dims(p: dict) -> dict[str, object]:
    return {d["Name"]: d["Value"] for d in p.get("Dimensions") or []}


def _alarm_on(svc: Service, namespace: str, metric: str, dim: str, value: object) -> list[dict]:
    return [p for p in _alarms(svc).values()
            if p.get("Namespace") == namespace and p.get("MetricName") == metric and _dims(p).get(dim) == value]


def _getatt_arn(v: object) -> str | None:
    if isinstance(v, dict) and v.get("Fn::GetAtt", [None, None])[1:] == ["Arn"]:
        return v["Fn::GetAtt"][0]
    return None


def _work_queues(svc: Service) -> list[str]:
    dlqs = svc.dead_letter_queues()
    return [q for q in svc.resources_of("AWS::SQS::Queue") if q not in dlqs]


def _statements(svc: Service):
    """(owner, statement) of every inline IAM statement: function policies, managed policies, queue policies."""
    for lid, fn in svc.functions.items():
        for pol in fn.properties.get("Policies") or []:
            if isinstance(pol, dict) and "Statement" in pol:
                for st in pol["Statement"]:
                    yield lid, st
    for lid, r in svc.resources_of("AWS::IAM::ManagedPolicy", "AWS::IAM::Policy", "AWS::SQS::QueuePolicy").items():
        for st in _props(r)["PolicyDocument"]["Statement"]:
            yield lid, st


def _listify(v: object) -> list:
    return v if isinstance(v, list) else [v]


def _table_lid(svc: Service) -> str:
    (lid,) = svc.resources_of("AWS::DynamoDB::Table")
    return lid


# ---------------------------------------------------------------- alarms and topic
@pytest.mark.parametrize("name", NAMES)
def test_alarms_notify_the_topic_the_deploy_names(name):
    """The root stack creates or takes the one alarm topic (tests/platform/test_production.py)."""
    svc = SVCS[name]
    t = svc.template
    assert "AlarmTopic" not in _res(svc) and "AlarmEmail" not in t["Parameters"]
    assert "Default" not in t["Parameters"]["AlarmTopicArn"]
    for lid, p in _alarms(svc).items():
        assert p["AlarmActions"] == [TOPIC] and p["OKActions"] == [TOPIC], lid
        assert "docs/operations.md#" in p["AlarmDescription"], lid


@pytest.mark.parametrize("name", NAMES)
def test_every_function_has_errors_and_throttles_alarms(name):
    """Throttles > 0 per function; errors as a rate over a window (test_production.py checks its shape)."""
    svc = SVCS[name]
    alarms = _alarms(svc)
    for lid in svc.functions:
        found = _alarm_on(svc, "AWS/Lambda", "Throttles", "FunctionName", {"Ref": lid})
        assert found and found[0]["Threshold"] == 0 and found[0]["ComparisonOperator"] == "GreaterThanThreshold", \
            f"{name}.{lid}: no Throttles alarm"
        errors = alarms.get(f"{lid}ErrorsAlarm")
        assert errors and {m["MetricStat"]["Metric"]["MetricName"] for m in errors["Metrics"] if "MetricStat" in m} \
            == {"Errors", "Invocations"}, f"{name}.{lid}: no error-rate alarm"


@pytest.mark.parametrize("name", NAMES)
def test_every_queue_has_a_dead_letter_queue_with_an_alarm(name):
    svc = SVCS[name]
    queues = svc.resources_of("AWS::SQS::Queue")
    dlqs = svc.dead_letter_queues()
    assert set(dlqs) <= set(queues)
    for q in _work_queues(svc):
        rp = _props(queues[q]).get("RedrivePolicy") or {}
        assert _getatt_arn(rp.get("deadLetterTargetArn")) in dlqs and int(rp["maxReceiveCount"]) >= 1, \
            f"{name}.{q} has no dead-letter queue"
        age = _alarm_on(svc, "AWS/SQS", "ApproximateAgeOfOldestMessage", "QueueName",
                        {"Fn::GetAtt": [q, "QueueName"]})
        assert age, f"{name}.{q}: no age-of-oldest-message alarm"
    for q in dlqs:
        found = _alarm_on(svc, "AWS/SQS", "ApproximateNumberOfMessagesVisible", "QueueName",
                          {"Fn::GetAtt": [q, "QueueName"]})
        assert found and found[0]["Threshold"] == 0 and found[0]["ComparisonOperator"] == "GreaterThanThreshold", \
            f"{name}.{q}: no alarm on visible messages"


@pytest.mark.parametrize("name", NAMES)
def test_http_api_throttling_from_parameters_and_alarms(name):
    svc = SVCS[name]
    (api,) = svc.resources_of("AWS::Serverless::HttpApi")
    rs = _props(_res(svc)[api])["DefaultRouteSettings"]
    assert rs == {"ThrottlingBurstLimit": {"Ref": "ApiThrottlingBurstLimit"},
                  "ThrottlingRateLimit": {"Ref": "ApiThrottlingRateLimit"}}
    for param in ("ApiThrottlingBurstLimit", "ApiThrottlingRateLimit", "Api5xxAlarmPercent", "ApiLatencyP99AlarmMs"):
        assert param in svc.template["Parameters"]
    latency = _alarm_on(svc, "AWS/ApiGateway", "Latency", "ApiId", {"Ref": api})
    assert latency and latency[0]["ExtendedStatistic"] == "p99"
    assert latency[0]["Threshold"] == {"Ref": "ApiLatencyP99AlarmMs"}
    rate = [p for p in _alarms(svc).values() if any(
        (m.get("MetricStat") or {}).get("Metric", {}).get("MetricName") == "5xx" for m in p.get("Metrics") or [])]
    assert rate, "no 5xx-rate alarm"
    metrics = {m["Id"]: m for m in rate[0]["Metrics"]}
    expr = next(m["Expression"] for m in metrics.values() if m.get("ReturnData"))
    used = {m["MetricStat"]["Metric"]["MetricName"]: i for i, m in metrics.items() if "MetricStat" in m}
    assert set(used) == {"5xx", "Count"} and f"{used['5xx']} / {used['Count']}" in expr
    for m in metrics.values():
        if "MetricStat" in m:
            assert _dims(m["MetricStat"]["Metric"]) == {"ApiId": {"Ref": api}}
    assert rate[0]["Threshold"] == {"Ref": "Api5xxAlarmPercent"}


@pytest.mark.parametrize("name", NAMES)
def test_table_throttle_alarm(name):
    svc = SVCS[name]
    table = _table_lid(svc)
    exprs = [m["Expression"] for p in _alarms(svc).values() for m in p.get("Metrics") or [] if "Expression" in m]
    sub = [e["Fn::Sub"] for e in exprs if isinstance(e, dict)]
    assert any("ThrottledRequests" in e and "${%s}" % table in e for e in sub), "no throttled-requests alarm"


@pytest.mark.parametrize("name", NAMES)
def test_cold_start_without_bytecode_alarm(name):
    """Issue #21: the metric lambdakit.observability.check_bytecode emits, in the service's
    namespace with no dimensions (Powertools Metrics without a service name), alarms."""
    svc = SVCS[name]
    p = _alarms(svc)["ColdStartWithoutBytecodeAlarm"]
    ns = svc.template["Globals"]["Function"]["Environment"]["Variables"]["POWERTOOLS_METRICS_NAMESPACE"]
    assert (p["Namespace"], p["MetricName"], p.get("Dimensions")) == (ns, "ColdStartWithoutBytecode", None)
    assert (p["Statistic"], p["Threshold"], p["ComparisonOperator"]) == ("Sum", 0, "GreaterThanThreshold")


@pytest.mark.parametrize("name", ["campaigns", "exams"])
def test_occupancy_marker_missed_alarm(name):
    """Issue #21: the metric lambdakit.occupancy.found emits when a full sweep finds work on a
    partition without its marker alarms in the services whose sweeps use markers."""
    svc = SVCS[name]
    p = _alarms(svc)["OccupancyMarkerMissedAlarm"]
    ns = svc.template["Globals"]["Function"]["Environment"]["Variables"]["POWERTOOLS_METRICS_NAMESPACE"]
    assert (p["Namespace"], p["MetricName"], p.get("Dimensions")) == (ns, "OccupancyMarkerMissed", None)
    assert (p["Statistic"], p["Threshold"], p["ComparisonOperator"]) == ("Sum", 0, "GreaterThanThreshold")
    assert "docs/operations.md#occupancy-marker-missed" in p["AlarmDescription"]


@pytest.mark.parametrize("name", NAMES)
def test_ses_reputation_alarms_where_the_service_sends_email(name):
    svc = SVCS[name]
    sends = any(set(_listify(st.get("Action"))) & SES_SEND for _, st in _statements(svc))
    alarms = {p.get("MetricName"): p for p in _alarms(svc).values() if p.get("Namespace") == "AWS/SES"}
    if not sends or name != "campaigns":
        # account-wide metrics: one stack (campaigns, the bulk sender) alarms on them, so they page once
        assert not alarms
        return
    bounce, complaint = alarms["Reputation.BounceRate"], alarms["Reputation.ComplaintRate"]
    assert bounce["Threshold"] == 0.05 and complaint["Threshold"] == 0.001
    assert bounce["ComparisonOperator"] == complaint["ComparisonOperator"] == "GreaterThanOrEqualToThreshold"


# ---------------------------------------------------------------- schedules
@pytest.mark.parametrize("name", NAMES)
def test_schedules_retry_dead_letter_and_alarm(name):
    svc = SVCS[name]
    queues = svc.resources_of("AWS::SQS::Queue")
    allowed_sources = set()
    for r in svc.resources_of("AWS::SQS::QueuePolicy").values():
        for st in _props(r)["PolicyDocument"]["Statement"]:
            for arn in _listify(((st.get("Condition") or {}).get("ArnEquals") or {}).get("aws:SourceArn", [])):
                allowed_sources.add(_getatt_arn(arn))
    rules = []
    for lid, fn in svc.functions.items():
        for ev_name, ev in fn.events.items():
            if ev["Type"] not in ("Schedule", "ScheduleV2"):
                continue
            p = ev["Properties"]
            assert int(p["RetryPolicy"]["MaximumRetryAttempts"]) >= 1 and p["RetryPolicy"]["MaximumEventAgeInSeconds"]
            assert _getatt_arn(p["DeadLetterConfig"]["Arn"]) in queues
            dlq = fn.properties.get("DeadLetterQueue") or {}
            assert dlq.get("Type") == "SQS" and _getatt_arn(dlq.get("TargetArn")) in queues, \
                f"{lid}: failed asynchronous runs must land in a queue"
            rules.append(f"{lid}{ev_name}")  # the rule SAM generates
    for lid, r in svc.resources_of("AWS::Events::Rule").items():
        for target in _props(r)["Targets"]:
            assert _getatt_arn((target.get("DeadLetterConfig") or {}).get("Arn")) in queues, lid
            assert target["RetryPolicy"]["MaximumRetryAttempts"] >= 1
        rules.append(lid)
    for rule in rules:
        assert _alarm_on(svc, "AWS/Events", "FailedInvocations", "RuleName", {"Ref": rule}), f"{rule}: no alarm"
        assert rule in allowed_sources, f"{rule} may not send to its dead-letter queue (queue policy)"


# ---------------------------------------------------------------- logs
@pytest.mark.parametrize("name", NAMES)
def test_every_function_has_its_log_group_with_retention(name):
    svc = SVCS[name]
    assert int(svc.template["Parameters"]["LogRetentionDays"]["Default"]) == 30
    names = set()
    for lid, fn in svc.functions.items():
        ref = (fn.properties.get("LoggingConfig") or {}).get("LogGroup")
        assert isinstance(ref, dict) and "Ref" in ref, f"{name}.{lid}: no LoggingConfig.LogGroup"
        group = _res(svc)[ref["Ref"]]
        assert group["Type"] == "AWS::Logs::LogGroup"
        assert _props(group)["RetentionInDays"] == {"Ref": "LogRetentionDays"}
        names.add(json.dumps(_props(group)["LogGroupName"]))
    assert len(names) == len(svc.functions), "one log group per function"


# ---------------------------------------------------------------- data safety
@pytest.mark.parametrize("name", NAMES)
def test_tables_and_data_buckets_retained_and_recoverable(name):
    svc = SVCS[name]
    t = svc.template
    assert "AWS::LanguageExtensions" in _listify(t["Transform"]), "Fn::If in DeletionPolicy needs LanguageExtensions"
    assert t["Parameters"]["DataRetention"]["Default"] == "Retain"
    assert t["Conditions"]["RetainData"] == {"Fn::Equals": [{"Ref": "DataRetention"}, "Retain"]}
    tables = svc.resources_of("AWS::DynamoDB::Table")
    assert tables
    for lid, r in tables.items():
        assert _props(r)["PointInTimeRecoverySpecification"]["PointInTimeRecoveryEnabled"] is True, lid
    for lid in [*tables, *DATA_BUCKETS[name], *svc.resources_of("AWS::Cognito::UserPool")]:
        r = _res(svc)[lid]
        assert r.get("DeletionPolicy") == RETAIN_IF and r.get("UpdateReplacePolicy") == RETAIN_IF, lid


def _lifecycle(svc: Service, bucket: str) -> dict[str, object]:
    rules = _props(_res(svc)[bucket])["LifecycleConfiguration"]["Rules"]
    assert all(r["Status"] == "Enabled" for r in rules)
    assert any("AbortIncompleteMultipartUpload" in r for r in rules) or bucket == "ImportUploadsBucket"
    return {r["Prefix"]: r["ExpirationInDays"] for r in rules if "ExpirationInDays" in r}


def test_s3_lifecycle_rules_by_prefix():
    from campaigns.contacts import jobs

    camp, exams, intern = SVCS["campaigns"], SVCS["exams"], SVCS["internships"]
    assert jobs.upload_key("acct", "job").startswith("imports/")
    assert _lifecycle(camp, "ImportUploadsBucket") == {"imports/": 1}
    assert _lifecycle(camp, "FilesBucket") == {"exports/": 7, "attachments/": 1}
    assert _lifecycle(exams, "EvidenceBucket") == {"evidence/": {"Ref": "EvidenceRetentionDays"}}
    assert int(exams.template["Parameters"]["EvidenceRetentionDays"]["Default"]) == 90
    assert _lifecycle(intern, "FilesBucket") == {"exports/": 7}
    sources = {p: (ROOT / "functions" / p).read_text() for p in (
        "exams/exams/proctoring/service.py", "campaigns/campaigns/contacts/export.py",
        "internships/internships/admin_insights/export.py")}
    assert 'f"evidence/' in sources["exams/exams/proctoring/service.py"]
    assert 'f"exports/' in sources["campaigns/campaigns/contacts/export.py"]
    assert 'f"exports/' in sources["internships/internships/admin_insights/export.py"]


# ---------------------------------------------------------------- queues
@pytest.mark.parametrize("name", NAMES)
def test_sqs_visibility_at_least_six_times_the_function_timeout(name):
    svc = SVCS[name]
    checked = 0
    for lid, fn in svc.functions.items():
        for ev in fn.events.values():
            if ev["Type"] != "SQS":
                continue
            q = _getatt_arn(ev["Properties"]["Queue"])
            vis = int(_props(_res(svc)[q])["VisibilityTimeout"])
            window = int(ev["Properties"].get("MaximumBatchingWindowInSeconds", 0))
            assert vis >= 6 * fn.timeout + window, f"{q}: visibility {vis} < 6 x {lid} timeout {fn.timeout} + {window}"
            checked += 1
    assert checked


# ---------------------------------------------------------------- IAM
@pytest.mark.parametrize("name", NAMES)
def test_no_wildcard_resource_except_where_aws_allows_nothing_narrower(name):
    for owner, st in _statements(SVCS[name]):
        if st.get("Effect") == "Allow" and "*" in _listify(st.get("Resource")):
            extra = set(_listify(st["Action"])) - set(WILDCARD_ALLOWED)
            assert not extra, f"{name}.{owner}: Resource '*' for {sorted(extra)}"


#: Tags an identity must carry for a function to send through it without being named in the
#: template (issue 17 item 8): identities registered through campaigns' /senders carry
#: ``campaigns:account``; SES-sandbox test recipients are tagged by hand (docs/operations.md).
SES_IDENTITY_TAGS = {"campaigns": {"campaigns:account", "campaigns:sandbox-recipient"},
                     "internships": {"internships:sandbox-recipient"}}


def _sub_text(r: object) -> str:
    if isinstance(r, dict) and isinstance(r.get("Fn::Sub"), list):
        return r["Fn::Sub"][0]
    return r["Fn::Sub"] if isinstance(r, dict) else str(r)


@pytest.mark.parametrize("name", NAMES)
def test_ses_sending_scoped_to_managed_identities_and_configuration_sets(name):
    """SES send permissions name the stack's configuration set, the service's own sender identity
    (internships: ``SenderEmail`` and its domain), or ``identity/*`` only under a condition that
    the identity carries one of the service's tags: never every identity of the account."""
    svc = SVCS[name]
    config_sets = set(svc.resources_of("AWS::SES::ConfigurationSet"))
    n = 0
    for owner, st in _statements(svc):
        if not set(_listify(st.get("Action"))) & SES_SEND:
            continue
        n += 1
        for r in _listify(st["Resource"]):
            text = _sub_text(r)
            m = re.fullmatch(r"arn:\$\{AWS::Partition\}:ses:\$\{AWS::Region\}:\$\{AWS::AccountId\}:"
                             r"(identity/(\*|\$\{SenderEmail\}|\$\{SenderDomain\})|configuration-set/\$\{(\w+)\})", text)
            assert m, f"{owner}: SES send resource {text!r}"
            assert m.group(3) is None or m.group(3) in config_sets
            if m.group(2) == "*":
                tags = {k.split("/", 1)[1] for k, v in (st.get("Condition") or {}).get("Null", {}).items()
                        if k.startswith("aws:ResourceTag/") and v == "false"}
                assert tags and tags <= SES_IDENTITY_TAGS.get(name, set()), \
                    f"{owner}: ses send on identity/* without a managed-identity tag condition"
    assert n or name == "exams"


def _calls_identity_api(svc: Service, lid: str) -> bool:
    pkg = Path(svc.functions[lid].code_dir, *svc.functions[lid].handler.split(".")[:2])
    return any("create_email_identity" in p.read_text() for p in pkg.rglob("*.py"))


@pytest.mark.parametrize("name", NAMES)
def test_sender_identity_management_only_for_the_functions_that_manage_senders(name):
    svc = SVCS[name]
    for owner, st in _statements(svc):
        admin = [a for a in _listify(st.get("Action")) if SES_IDENTITY_ADMIN.match(a)]
        if admin:
            assert _res(svc)[owner]["Type"] == "AWS::IAM::ManagedPolicy", \
                f"{owner}: SES identity management inline; attach SenderIdentityManagementPolicy instead"
            for r in _listify(st["Resource"]):
                assert ":identity/*" in r["Fn::Sub"] or ":configuration-set/" in r["Fn::Sub"]
    for lid, fn in svc.functions.items():
        if {"Ref": "SenderIdentityManagementPolicy"} in (fn.properties.get("Policies") or []):
            assert _calls_identity_api(svc, lid), f"{lid} attaches the sender policy but manages no senders"


def _table_write_statements(svc: Service, lid: str):
    for pol in svc.functions[lid].properties.get("Policies") or []:
        if isinstance(pol, dict) and "Statement" in pol:
            for st in pol["Statement"]:
                acts = {a for a in _listify(st["Action"]) if a.startswith("dynamodb:")}
                if st["Effect"] == "Allow" and acts - READ_ACTIONS:
                    yield st


@pytest.mark.parametrize("service,lid", sorted(READ_ONLY), ids=[f"{s}.{f}" for s, f in sorted(READ_ONLY)])
def test_read_only_functions_get_read_only_table_policies(service, lid):
    svc = SVCS[service]
    pols = svc.functions[lid].properties["Policies"]
    templates = {k for p in pols if isinstance(p, dict) for k in p if k != "Statement"}
    assert "DynamoDBReadPolicy" in templates and not templates & WRITE_TEMPLATES, templates
    allowed = READ_ONLY[(service, lid)]
    for st in _table_write_statements(svc, lid):
        keys = st["Condition"]["ForAllValues:StringLike"]["dynamodb:LeadingKeys"]
        assert {k.removesuffix("#*") for k in keys} <= allowed and all(k.endswith("#*") for k in keys), keys


def _authenticates(svc: Service, lid: str) -> bool:
    module = svc.functions[lid].handler.rpartition(".")[0]
    path = Path(svc.functions[lid].code_dir, *module.split(".")).with_suffix(".py")
    return "require(" in path.read_text()


def test_api_key_hash_items_only_for_functions_that_authenticate():
    """campaigns keeps ``pk=APIKEYHASH#<sha256>`` auth items (apikeys/repository.py): every function
    that does not authenticate API keys is denied those items by leading key, and Scan."""
    repo = importlib.import_module("campaigns.apikeys.repository")
    pk, _ = repo._hash_key("0" * 64)
    prefix = pk.split("#")[0] + "#*"
    svc = SVCS["campaigns"]
    table_arn = {"Fn::GetAtt": [_table_lid(svc), "Arn"]}
    non_auth = [lid for lid in svc.functions if not _authenticates(svc, lid)]
    assert {"TrackingFunction", "SendWorkerFunction", "DispatcherFunction"} <= set(non_auth)
    for lid, fn in svc.functions.items():
        denies = [st for pol in fn.properties.get("Policies") or [] if isinstance(pol, dict)
                  for st in pol.get("Statement", []) if st["Effect"] == "Deny"]
        key_deny = [st for st in denies
                    if st.get("Condition", {}).get("ForAnyValue:StringLike", {}).get("dynamodb:LeadingKeys") == [prefix]]
        if lid in non_auth:
            assert key_deny, f"{lid} may read API-key hash items"
            acts = set(_listify(key_deny[0]["Action"]))
            assert {"dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:Query", "dynamodb:PutItem",
                    "dynamodb:UpdateItem", "dynamodb:DeleteItem"} <= acts and key_deny[0]["Resource"] == table_arn
            assert any(_listify(st["Action"]) == ["dynamodb:Scan"] and st["Resource"] == table_arn for st in denies)
        else:
            assert not key_deny, f"{lid} authenticates: it must read the hash items"


# ---------------------------------------------------------------- dashboards
def _dashboard(svc: Service) -> dict:
    (lid,) = svc.resources_of("AWS::CloudWatch::Dashboard")
    body = _props(_res(svc)[lid])["DashboardBody"]["Fn::Sub"]
    return json.loads(re.sub(r"\$\{([^}]+)\}", lambda m: m.group(1), body))


def _emitted(monkeypatch, capsys, env: dict[str, str], name: str, dims: dict[str, str]) -> tuple[str, set[str]]:
    """Namespace and dimension names of the EMF line ``count`` writes under a function's environment."""
    from lambdakit import observability as obs

    for k in ("POWERTOOLS_METRICS_NAMESPACE", "POWERTOOLS_SERVICE_NAME"):
        if env.get(k):
            monkeypatch.setenv(k, env[k])
        else:
            monkeypatch.delenv(k, raising=False)
    monkeypatch.setattr(obs, "_metrics", None)
    capsys.readouterr()
    obs.count(name, **dims)
    obs.flush_metrics()
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines() if x.startswith("{")]
    (doc,) = [x for x in lines if name in x]
    (cw,) = doc["_aws"]["CloudWatchMetrics"]
    (dimset,) = cw["Dimensions"]
    return cw["Namespace"], set(dimset)


@pytest.mark.parametrize("name", NAMES)
def test_dashboard_queries_match_the_emitted_business_metrics(name, monkeypatch, capsys):
    svc = SVCS[name]
    env = provision(svc, create=False).function_env(next(iter(svc.functions)))
    shown: dict[str, list[tuple[str, set[str]]]] = {}
    for w in _dashboard(svc)["widgets"]:
        for row in w["properties"]["metrics"]:
            if isinstance(row[0], dict):
                m = re.fullmatch(r"SEARCH\('\{([^}]+)\} MetricName=\"(\w+)\"', '\w+', \d+\)", row[0]["expression"])
                assert m, row
                ns, *dimnames = m.group(1).split(",")
                shown.setdefault(m.group(2), []).append((ns, set(dimnames)))
            else:
                parts = [x for x in row if not isinstance(x, dict)]
                shown.setdefault(parts[1], []).append((parts[0], set(parts[2::2])))
    for metric, dims in BUSINESS_METRICS[name].items():
        ns, dimset = _emitted(monkeypatch, capsys, env, metric, dims)
        assert (ns, dimset) in shown.get(metric, []), \
            f"dashboard has no {ns}/{metric} with dimensions {sorted(dimset)} (it shows {shown.get(metric)})"
    assert env["POWERTOOLS_METRICS_NAMESPACE"] in {"EmailCampaigns", "OnlineExams", "Internships"}


# ---------------------------------------------------------------- stack size and root parameters
@pytest.mark.parametrize("name", NAMES)
def test_resources_after_the_sam_transform_stay_below_the_cloudformation_limit(name):
    from cfnlint.decode import decode
    from cfnlint.template.transforms._sam import Transform

    path = ROOT / "functions" / name / "template.yaml"
    tpl, matches = decode(str(path))
    assert not matches
    t = Transform(str(path), tpl, "us-east-1")
    assert not t.transform_template()
    n = len(t.template()["Resources"])
    assert n <= 450, f"{name}: {n} resources after the SAM transform (CloudFormation allows 500 per stack)"


def test_root_passes_the_operability_parameters_to_every_service():
    root = load_root()
    for lid, r in root["Resources"].items():
        if r["Type"] != "AWS::Serverless::Application":
            continue
        params = r["Properties"]["Parameters"]
        assert params["AlarmTopicArn"] == {"Fn::If": ["CreateAlarmTopic", {"Ref": "AlarmTopic"}, {"Ref": "AlarmTopicArn"}]}
        for p in ("DeploymentPreferenceType", "DeletionProtection", "LogRetentionDays", "DataRetention", "ApiThrottlingBurstLimit",
                  "ApiThrottlingRateLimit"):
            assert params[p] == {"Ref": p}, f"{lid}: {p}"
            assert p in root["Parameters"]
    assert root["Parameters"]["DataRetention"]["Default"] == "Retain"
