"""CORS in the templates and the local runtime's reading of it (issue 31 item 3, docs/platform.md "CORS")."""
from __future__ import annotations

import pytest

from local_runtime import provision as pv
from local_runtime.cors import CorsConfig
from local_runtime.stack import load_all

SERVICES = load_all()
#: buckets a browser talks to with presigned URLs: (service, bucket, the methods it needs)
BROWSER_BUCKETS = [("campaigns", "ImportUploadsBucket", {"POST"}), ("campaigns", "FilesBucket", {"GET"}),
                   ("exams", "EvidenceBucket", {"GET"}), ("internships", "FilesBucket", {"PUT", "GET"})]


def _env(name: str, **params: str) -> pv.ServiceEnv:
    svc = SERVICES[name]
    return pv.ServiceEnv(svc, pv._param_defaults(svc.template, {"Stage": "local", **params}))


def _cors(name: str, **params: str) -> CorsConfig | None:
    return CorsConfig.of(SERVICES[name], _env(name, **params).resolve)


@pytest.mark.parametrize("name", sorted(SERVICES))
def test_every_http_api_takes_its_origins_from_the_allowed_origins_parameter(name):
    assert SERVICES[name].template["Parameters"]["AllowedOrigins"]["Default"] == ""
    assert _cors(name) is None  # nothing configured (internships: nor FrontendUrl): no CORS at all
    c = _cors(name, AllowedOrigins="https://app.example.com,https://admin.example.com")
    assert c is not None and c.allow_origins == ("https://app.example.com", "https://admin.example.com")
    assert {"authorization", "content-type"} <= set(c.allow_headers) and c.max_age == 600
    assert {"GET", "POST", "DELETE"} <= set(c.allow_methods)
    assert c.allow_credentials is (name == "internships")  # cookies only there
    assert "retry-after" in c.expose_headers and "content-disposition" in c.expose_headers


def test_headers_each_service_reads_are_allowed():
    assert {"idempotency-key"} <= set(_cors("campaigns", AllowedOrigins="https://a.example").allow_headers)
    assert {"x-attempt-token", "x-guest-token", "x-request-id"} <= set(
        _cors("exams", AllowedOrigins="https://a.example").allow_headers)
    assert "x-csrf-token" in _cors("internships", AllowedOrigins="https://a.example").allow_headers


def test_internships_defaults_to_its_frontend_url():
    assert _cors("internships", FrontendUrl="") is None
    c = _cors("internships", FrontendUrl="https://learn.example.com")
    assert c is not None and c.allow_origins == ("https://learn.example.com",)
    c = _cors("internships", FrontendUrl="https://learn.example.com", AllowedOrigins="https://a.example,https://b.example")
    assert c.allow_origins == ("https://a.example", "https://b.example")


@pytest.mark.parametrize("name,bucket,methods", BROWSER_BUCKETS)
def test_buckets_browsers_use_have_cors_rules_from_the_same_origins(name, bucket, methods):
    res = SERVICES[name].template["Resources"][bucket]
    none = _env(name, FrontendUrl="").resolve(res["Properties"])
    assert "CorsConfiguration" not in none
    props = _env(name, AllowedOrigins="https://app.example.com").resolve(res["Properties"])
    [rule] = props["CorsConfiguration"]["CorsRules"]
    assert rule["AllowedOrigins"] == ["https://app.example.com"] and methods <= set(rule["AllowedMethods"])
    assert pv.s3_cors_rule(rule)["MaxAgeSeconds"] == 600  # the S3 API's names (PutBucketCors)


def test_root_template_passes_each_services_origins():
    from local_runtime.stack import load_root

    root = load_root()
    for lid, param in (("CampaignsService", "CampaignsAllowedOrigins"), ("ExamsService", "ExamsAllowedOrigins"),
                       ("InternshipsService", "InternshipsAllowedOrigins")):
        assert param in root["Parameters"]
        assert root["Resources"][lid]["Properties"]["Parameters"]["AllowedOrigins"] == {"Ref": param}


# ---------------------------------------------------------------- the gateway's rules
CFG = CorsConfig(("https://app.example.com", "http://*"), ("GET", "POST"), ("authorization", "content-type"),
                 ("x-request-id",), True, 300)


def test_origin_matching():
    assert CFG.allowed_origin("https://app.example.com") == "https://app.example.com"
    assert CFG.allowed_origin("https://APP.example.com") == "https://APP.example.com"
    assert CFG.allowed_origin("https://app.example.com:8443") is None  # the port is part of the origin
    assert CFG.allowed_origin("https://evil.example.com") is None
    assert CFG.allowed_origin("http://anything.test:81") == "http://anything.test:81"  # http://*
    assert CFG.allowed_origin("null") is None
    star = CorsConfig(("*",), ("*",), ("*",), (), False, None)
    assert star.allowed_origin("https://x.test") == "*"


def test_preflight():
    ok = CFG.preflight("OPTIONS", {"origin": "https://app.example.com", "access-control-request-method": "POST",
                                   "access-control-request-headers": "Content-Type, Authorization"})
    assert ok == (204, {"access-control-allow-origin": "https://app.example.com", "vary": "Origin",
                        "access-control-allow-methods": "GET,POST",
                        "access-control-allow-headers": "authorization,content-type",
                        "access-control-max-age": "300", "access-control-allow-credentials": "true"})
    assert CFG.preflight("OPTIONS", {"origin": "https://app.example.com", "access-control-request-method": "PUT"}) \
        == (204, {})
    assert CFG.preflight("OPTIONS", {"origin": "https://app.example.com", "access-control-request-method": "GET",
                                     "access-control-request-headers": "x-other"}) == (204, {})
    assert CFG.preflight("OPTIONS", {"origin": "https://app.example.com"}) is None  # not a preflight: routed
    assert CFG.preflight("GET", {"origin": "https://app.example.com", "access-control-request-method": "GET"}) is None


def test_actual_response_headers_replace_the_integrations():
    fn = {"content-type": "application/json", "access-control-allow-origin": "*", "vary": "Accept-Encoding"}
    out = CFG.decorate({"origin": "https://app.example.com"}, fn)
    assert out == {"content-type": "application/json", "access-control-allow-origin": "https://app.example.com",
                   "vary": "Accept-Encoding, Origin", "access-control-allow-credentials": "true",
                   "access-control-expose-headers": "x-request-id"}
    assert CFG.decorate({"origin": "https://evil.example.com"}, fn) == {"content-type": "application/json",
                                                                       "vary": "Accept-Encoding"}
    assert CFG.decorate({}, fn) == {"content-type": "application/json", "vary": "Accept-Encoding"}


def test_provisioned_bucket_gets_the_rules(aws_mock):
    """The runtime creates the internships files bucket with its CORS rule in the emulator (S3's
    field names), so a browser's presigned PUT is judged by the same rule as on AWS."""
    import boto3

    env = pv.provision(SERVICES["internships"], {"Stage": "local", "AllowedOrigins": "http://127.0.0.1:5173"})
    bucket = env.refs["FilesBucket"]
    [rule] = boto3.client("s3", region_name="us-east-1").get_bucket_cors(Bucket=bucket)["CORSRules"]
    assert rule["AllowedOrigins"] == ["http://127.0.0.1:5173"] and "PUT" in rule["AllowedMethods"]
    assert rule["MaxAgeSeconds"] == 600 and rule["ExposeHeaders"] == ["ETag"]
