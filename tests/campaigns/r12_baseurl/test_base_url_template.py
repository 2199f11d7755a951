"""Issue 33 item 1, the template side: the custom-domain path (domain name + mapping under a
condition, the certificate required with the domain), the SSM parameter read at run time, and
least-privilege ``ssm:GetParameter`` on that one parameter for the functions that build links."""
from __future__ import annotations

from local_runtime.cfn import load
from local_runtime.stack import ROOT

T = load(ROOT / "functions" / "campaigns" / "template.yaml")
LINK_BUILDERS = {"HealthFunction", "CampaignsFunction", "SendingFunction", "SendWorkerFunction", "TrackingFunction"}


def test_custom_domain_path_is_optional_and_complete():
    p = T["Parameters"]
    assert p["CustomDomainName"]["Default"] == "" and p["CertificateArn"]["Default"] == ""
    res = T["Resources"]
    assert res["ApiDomainName"]["Type"] == "AWS::ApiGatewayV2::DomainName"
    assert res["ApiDomainMapping"]["Type"] == "AWS::ApiGatewayV2::ApiMapping"
    assert res["ApiDomainName"]["Condition"] == res["ApiDomainMapping"]["Condition"] == "HasCustomDomain"
    cfg = res["ApiDomainName"]["Properties"]["DomainNameConfigurations"][0]
    assert cfg["CertificateArn"] == {"Ref": "CertificateArn"} and cfg["SecurityPolicy"] == "TLS_1_2"
    assert res["ApiDomainMapping"]["Properties"]["ApiId"] == {"Ref": "HttpApi"}
    rule = T["Rules"]["CustomDomainNeedsCertificate"]
    assert rule["Assertions"][0]["Assert"] == {"Fn::Not": [{"Fn::Equals": [{"Ref": "CertificateArn"}, ""]}]}
    env = T["Globals"]["Function"]["Environment"]["Variables"]
    assert env["CAMPAIGNS_PUBLIC_BASE_URL"] == {"Fn::If": ["HasCustomDomain", {"Fn::Sub": "https://${CustomDomainName}"},
                                                           {"Ref": "PublicBaseUrl"}]}
    assert env["CAMPAIGNS_PUBLIC_BASE_URL_PARAMETER"] == {"Ref": "PublicBaseUrlParameter"}


def test_ssm_parameter_and_least_privilege_reads():
    param = T["Resources"]["PublicBaseUrlParameter"]
    assert param["Type"] == "AWS::SSM::Parameter" and param["Properties"]["Value"] == "unset"
    readers = set()
    for lid, r in T["Resources"].items():
        for pol in (r.get("Properties") or {}).get("Policies") or []:
            for st in pol.get("Statement", []) if isinstance(pol, dict) else []:
                actions = st["Action"] if isinstance(st["Action"], list) else [st["Action"]]
                if any(a.startswith("ssm:") for a in actions):
                    assert actions == ["ssm:GetParameter"], lid
                    assert st["Resource"] == {"Fn::Sub": "arn:${AWS::Partition}:ssm:${AWS::Region}:${AWS::AccountId}"
                                                         ":parameter${PublicBaseUrlParameter}"}
                    readers.add(lid)
    assert readers == LINK_BUILDERS
    assert T["Outputs"]["PublicBaseUrlParameterName"]["Value"] == {"Ref": "PublicBaseUrlParameter"}
    root = load(ROOT / "template.yaml")
    assert root["Outputs"]["CampaignsBaseUrlParameter"]["Value"] == {
        "Fn::GetAtt": ["CampaignsService", "Outputs.PublicBaseUrlParameterName"]}
