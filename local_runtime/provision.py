"""Create every resource the templates declare in the AWS emulator (moto).

Nothing here keeps its own list of resources: tables, queues (with redrive
policies and DLQs), buckets (with their SQS notifications), user pools, secrets
and the rest come from parsing the templates. ``provision`` returns a
``ServiceEnv`` that resolves ``Ref`` and ``GetAtt`` to the physical resources and
computes each function's environment.

Resources with no local behaviour are not created (their ``Ref`` still resolves to a name):
log groups, CloudWatch alarms and dashboards, the SNS alarm topic and its subscription, IAM and
SQS queue policies. Dead-letter queues of schedules (``DeadLetterConfig``) are ordinary queues.
"""
from __future__ import annotations

import json
import os
import secrets as _secrets
import string
from dataclasses import dataclass, field
from typing import Any

from . import cfn
from .stack import ACCOUNT, REGION, Service

#: Generated secret values, kept per process so re-provisioning (tests reset the
#: emulator between tests) gives every secret the same value again.
_SECRET_VALUES: dict[tuple[str, str], str] = {}


@dataclass
class ServiceEnv:
    service: Service
    params: dict[str, Any]
    refs: dict[str, Any] = field(default_factory=dict)
    atts: dict[tuple[str, str], Any] = field(default_factory=dict)
    #: Secret values by logical id (local development prints some of them).
    secret_values: dict[str, str] = field(default_factory=dict)
    #: (user pool id, group name) of the template's Cognito groups.
    groups: set[tuple[str, str]] = field(default_factory=set)

    @property
    def resolver(self) -> cfn.Resolver:
        return cfn.Resolver(self.service.template, self.params, self._ref, self._getatt,
                            pseudo={"AWS::StackName": f"local-{self.service.name}"})

    def _ref(self, lid: str) -> Any:
        if lid in self.refs:
            return self.refs[lid]
        return f"{self.service.name}-{lid}"

    def _getatt(self, lid: str, attr: str) -> Any:
        if (lid, attr) in self.atts:
            return self.atts[(lid, attr)]
        if attr == "Arn":
            return f"arn:aws:local:{REGION}:{ACCOUNT}:{self._ref(lid)}"
        return f"{self._ref(lid)}.{attr}"

    def function_env(self, lid: str) -> dict[str, str]:
        fn = self.service.functions[lid]
        env = self.resolver.resolve(fn.env_raw)
        return {k: ("" if v is None else str(v)) for k, v in env.items()}

    def resolve(self, value: Any) -> Any:
        return self.resolver.resolve(value)

    def queue_url_by_arn(self, arn: str) -> str | None:
        for (lid, attr), value in self.atts.items():
            if attr == "Arn" and value == arn and self.service.template["Resources"][lid]["Type"] == "AWS::SQS::Queue":
                return self.refs[lid]
        return None


class Clients:
    """boto3 clients created once per session (creating a client costs ~20 ms)."""

    def __init__(self, session: Any = None) -> None:
        self._session = session
        self._cache: dict[str, Any] = {}

    def __call__(self, name: str) -> Any:
        c = self._cache.get(name)
        if c is None:
            if self._session is None:
                import boto3

                self._session = boto3.session.Session(region_name=REGION)
            c = self._cache[name] = self._session.client(name, region_name=REGION)
        return c


def _param_defaults(t: dict, overrides: dict[str, Any]) -> dict[str, Any]:
    out = {k: v.get("Default", "") for k, v in (t.get("Parameters") or {}).items()}
    out.update({k: v for k, v in overrides.items() if k in out})
    return out


def generate_secret(spec: dict) -> str:
    """A value for ``GenerateSecretString`` (length, punctuation, JSON template + key)."""
    length = int(spec.get("PasswordLength", 32))
    alphabet = string.ascii_letters + string.digits
    if not spec.get("ExcludePunctuation"):
        alphabet += "!#$%&()*+,-.:;<=>?@[]^_{|}~"
    for ch in spec.get("ExcludeCharacters", ""):
        alphabet = alphabet.replace(ch, "")
    password = "".join(_secrets.choice(alphabet) for _ in range(length))
    if spec.get("SecretStringTemplate") and spec.get("GenerateStringKey"):
        doc = json.loads(spec["SecretStringTemplate"])
        doc[spec["GenerateStringKey"]] = password
        return json.dumps(doc)
    return password


def _names(service: Service, se: ServiceEnv, endpoint: str | None) -> None:
    """Physical names first, so GetAtt/Ref across resources resolve regardless of order."""
    for lid, r in service.template.get("Resources", {}).items():
        t = r.get("Type")
        p = r.get("Properties") or {}
        if t == "AWS::DynamoDB::Table":
            name = p.get("TableName") if isinstance(p.get("TableName"), str) else f"{service.name}-{lid}"
            se.refs[lid] = name
            se.atts[(lid, "Arn")] = f"arn:aws:dynamodb:{REGION}:{ACCOUNT}:table/{name}"
            se.atts[(lid, "StreamArn")] = f"arn:aws:dynamodb:{REGION}:{ACCOUNT}:table/{name}/stream/local"
        elif t == "AWS::SQS::Queue":
            name = str(p["QueueName"]) if isinstance(p.get("QueueName"), str) else f"{service.name}-{lid}"
            if p.get("FifoQueue") and not name.endswith(".fifo"):
                name += ".fifo"
            se.atts[(lid, "QueueName")] = name
            se.atts[(lid, "Arn")] = f"arn:aws:sqs:{REGION}:{ACCOUNT}:{name}"
            se.refs[lid] = f"{endpoint or 'https://sqs.' + REGION + '.amazonaws.com'}/{ACCOUNT}/{name}"
        elif t == "AWS::S3::Bucket":
            name = (p.get("BucketName") if isinstance(p.get("BucketName"), str)
                    else f"{service.name}-{lid}-local".lower())
            se.refs[lid] = name
            se.atts[(lid, "Arn")] = f"arn:aws:s3:::{name}"
            se.atts[(lid, "DomainName")] = f"{name}.s3.amazonaws.com"
            se.atts[(lid, "RegionalDomainName")] = f"{name}.s3.{REGION}.amazonaws.com"
        elif t == "AWS::Serverless::Function":
            name = f"{service.name}-{lid}"
            se.refs[lid] = name
            se.atts[(lid, "Arn")] = f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{name}"
        elif t == "AWS::Serverless::HttpApi":
            se.refs[lid] = f"local-{service.name}"
        elif t == "AWS::SNS::Topic":
            se.refs[lid] = f"arn:aws:sns:{REGION}:{ACCOUNT}:{service.name}-{lid}"
        elif t == "AWS::Events::EventBus":
            name = p.get("Name") if isinstance(p.get("Name"), str) else f"{service.name}-{lid}"
            se.refs[lid] = name
            se.atts[(lid, "Arn")] = f"arn:aws:events:{REGION}:{ACCOUNT}:event-bus/{name}"
            se.atts[(lid, "Name")] = name
        elif t == "AWS::SecretsManager::Secret":
            name = p.get("Name") if isinstance(p.get("Name"), str) else f"{service.name}-{lid}"
            se.refs[lid] = f"arn:aws:secretsmanager:{REGION}:{ACCOUNT}:secret:{name}"
        elif t in ("AWS::SES::ConfigurationSet",):
            se.refs[lid] = p.get("Name") if isinstance(p.get("Name"), str) else f"{service.name}-{lid}"


def provision(service: Service, params: dict[str, Any] | None = None, *, create: bool = True,
              clients: Clients | None = None, reuse_pools: ServiceEnv | None = None) -> ServiceEnv:
    """Create the service's resources (``create=False`` only computes names).

    ``reuse_pools``: a previous ``ServiceEnv`` whose Cognito pools still exist in the
    emulator (the test harness keeps them between tests: creating one costs ~140 ms).
    """
    se = ServiceEnv(service, _param_defaults(service.template, params or {}))
    res = service.template.get("Resources", {})
    _names(service, se, os.environ.get("AWS_ENDPOINT_URL"))
    if not create:
        return se
    client = clients or Clients()

    def props(lid: str) -> dict:
        return se.resolve(res[lid].get("Properties") or {})

    # DynamoDB tables
    for lid in service.resources_of("AWS::DynamoDB::Table"):
        ddb = client("dynamodb")
        p = props(lid)
        kw: dict[str, Any] = {
            "TableName": se.refs[lid], "KeySchema": p["KeySchema"], "AttributeDefinitions": p["AttributeDefinitions"],
            "BillingMode": p.get("BillingMode", "PAY_PER_REQUEST"),
        }
        if kw["BillingMode"] != "PAY_PER_REQUEST":
            kw["ProvisionedThroughput"] = p.get("ProvisionedThroughput",
                                                {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5})
        if p.get("GlobalSecondaryIndexes"):
            kw["GlobalSecondaryIndexes"] = p["GlobalSecondaryIndexes"]
        if p.get("LocalSecondaryIndexes"):
            kw["LocalSecondaryIndexes"] = p["LocalSecondaryIndexes"]
        if p.get("StreamSpecification"):
            kw["StreamSpecification"] = {"StreamEnabled": True, **p["StreamSpecification"]}
        try:
            ddb.create_table(**kw)
        except ddb.exceptions.ResourceInUseException:
            pass
        ttl = p.get("TimeToLiveSpecification")
        if ttl and ttl.get("Enabled"):
            ddb.update_time_to_live(TableName=se.refs[lid], TimeToLiveSpecification=ttl)

    # SQS queues: DLQs (no redrive policy) first
    queues = service.resources_of("AWS::SQS::Queue")
    for lid in sorted(queues, key=lambda q: "RedrivePolicy" in (queues[q].get("Properties") or {})):
        sqs = client("sqs")
        p = props(lid)
        attrs = {}
        for k in ("VisibilityTimeout", "MessageRetentionPeriod", "DelaySeconds", "ReceiveMessageWaitTimeSeconds",
                  "MaximumMessageSize"):
            if k in p:
                attrs[k] = str(p[k])
        if p.get("RedrivePolicy"):
            rp = p["RedrivePolicy"]
            attrs["RedrivePolicy"] = rp if isinstance(rp, str) else json.dumps(rp)
        if p.get("FifoQueue"):
            attrs["FifoQueue"] = "true"
            if p.get("ContentBasedDeduplication"):
                attrs["ContentBasedDeduplication"] = "true"
        url = sqs.create_queue(QueueName=se.atts[(lid, "QueueName")], Attributes=attrs)["QueueUrl"]
        se.refs[lid] = url

    # S3 buckets (after queues: notifications point at them)
    for lid in service.resources_of("AWS::S3::Bucket"):
        s3 = client("s3")
        p = props(lid)
        bucket = se.refs[lid]
        try:
            s3.create_bucket(Bucket=bucket)
        except (s3.exceptions.BucketAlreadyOwnedByYou, s3.exceptions.BucketAlreadyExists):
            pass
        if p.get("CorsConfiguration"):
            s3.put_bucket_cors(Bucket=bucket, CORSConfiguration={"CORSRules": [
                s3_cors_rule(r) for r in p["CorsConfiguration"]["CorsRules"]]})
        if p.get("PublicAccessBlockConfiguration"):
            s3.put_public_access_block(Bucket=bucket,
                                       PublicAccessBlockConfiguration=p["PublicAccessBlockConfiguration"])
        if (p.get("VersioningConfiguration") or {}).get("Status"):
            s3.put_bucket_versioning(Bucket=bucket,
                                     VersioningConfiguration={"Status": p["VersioningConfiguration"]["Status"]})
        notif = bucket_notification(p.get("NotificationConfiguration") or {})
        if notif:
            s3.put_bucket_notification_configuration(Bucket=bucket, NotificationConfiguration=notif)

    # Cognito user pools, then their clients
    pools = service.resources_of("AWS::Cognito::UserPool")
    if pools and reuse_pools is not None:
        for lid in [*pools, *service.resources_of("AWS::Cognito::UserPoolClient")]:
            se.refs[lid] = reuse_pools.refs[lid]
            for (alid, attr), v in reuse_pools.atts.items():
                if alid == lid:
                    se.atts[(alid, attr)] = v
        se.groups = set(reuse_pools.groups)
    elif pools:
        idp = client("cognito-idp")
        for lid in pools:
            p = props(lid)
            kw = {"PoolName": p.get("UserPoolName", f"{service.name}-{lid}")}
            for k in ("Policies", "AutoVerifiedAttributes", "UsernameAttributes", "AliasAttributes", "Schema",
                      "UsernameConfiguration", "AdminCreateUserConfig", "MfaConfiguration"):
                if k in p:
                    kw[k] = p[k]
            pool = idp.create_user_pool(**kw)["UserPool"]
            se.refs[lid] = pool["Id"]
            se.atts[(lid, "Arn")] = pool["Arn"]
            se.atts[(lid, "ProviderName")] = f"cognito-idp.{REGION}.amazonaws.com/{pool['Id']}"
            se.atts[(lid, "ProviderURL")] = f"https://cognito-idp.{REGION}.amazonaws.com/{pool['Id']}"
        for lid in service.resources_of("AWS::Cognito::UserPoolClient"):
            p = props(lid)
            kw = {"UserPoolId": p["UserPoolId"], "ClientName": p.get("ClientName", f"{service.name}-{lid}")}
            for k in ("ExplicitAuthFlows", "GenerateSecret", "IdTokenValidity", "AccessTokenValidity",
                      "RefreshTokenValidity", "TokenValidityUnits", "PreventUserExistenceErrors"):
                if k in p:
                    kw[k] = p[k]
            se.refs[lid] = idp.create_user_pool_client(**kw)["UserPoolClient"]["ClientId"]
        for lid in service.resources_of("AWS::Cognito::UserPoolGroup"):
            p = props(lid)
            kw = {"UserPoolId": p["UserPoolId"], "GroupName": p.get("GroupName", lid)}
            if "Description" in p:
                kw["Description"] = p["Description"]
            if "Precedence" in p:
                kw["Precedence"] = int(p["Precedence"])
            idp.create_group(**kw)
            se.refs[lid] = kw["GroupName"]
            se.groups.add((kw["UserPoolId"], kw["GroupName"]))

    # Secrets (template value, or generated once per process from GenerateSecretString)
    for lid in service.resources_of("AWS::SecretsManager::Secret"):
        sm = client("secretsmanager")
        p = props(lid)
        name = p.get("Name", f"{service.name}-{lid}")
        key = (service.name, lid)
        if key not in _SECRET_VALUES:
            _SECRET_VALUES[key] = p.get("SecretString") or generate_secret(p.get("GenerateSecretString") or {})
        value = _SECRET_VALUES[key]
        try:
            arn = sm.create_secret(Name=name, SecretString=value, Description=p.get("Description", ""))["ARN"]
        except sm.exceptions.ResourceExistsException:
            arn = sm.describe_secret(SecretId=name)["ARN"]
        se.refs[lid] = arn
        se.secret_values[lid] = value
    for lid in service.resources_of("AWS::SSM::Parameter"):
        ssm = client("ssm")
        p = props(lid)
        name = p.get("Name", f"/{service.name}/{lid}")
        ssm.put_parameter(Name=name, Value=str(p.get("Value", "")), Type=p.get("Type", "String"), Overwrite=True)
        se.refs[lid] = name

    # EventBridge buses
    for lid in service.resources_of("AWS::Events::EventBus"):
        ev = client("events")
        try:
            ev.create_event_bus(Name=se.refs[lid])
        except ev.exceptions.ResourceAlreadyExistsException:
            pass

    # SES: configuration sets and identities declared by the template, plus the local
    # sender identities (LOCAL_SES_IDENTITIES) so SendEmail works against the emulator.
    for lid in service.resources_of("AWS::SES::ConfigurationSet"):
        sesv2 = client("sesv2")
        try:
            sesv2.create_configuration_set(ConfigurationSetName=se.refs[lid])
        except sesv2.exceptions.AlreadyExistsException:
            pass
    identities = [props(lid)["EmailIdentity"] for lid in service.resources_of("AWS::SES::EmailIdentity")]
    identities += [i.strip() for i in os.environ.get("LOCAL_SES_IDENTITIES", DEFAULT_SES_IDENTITIES).split(",")
                   if i.strip()]
    for identity in identities:
        client("ses").verify_email_identity(EmailAddress=identity)
    return se


#: Sender domains verified in the emulator (SES refuses unverified senders, as AWS does).
DEFAULT_SES_IDENTITIES = "example.com,example.org,example.net,localhost"


#: CloudFormation's names of a bucket CORS rule's fields → the S3 API's (PutBucketCors).
_CORS_RULE_KEYS = {"Id": "ID", "ExposedHeaders": "ExposeHeaders", "MaxAge": "MaxAgeSeconds"}


def s3_cors_rule(rule: dict) -> dict:
    return {_CORS_RULE_KEYS.get(k, k): (int(v) if k == "MaxAge" else v) for k, v in rule.items()}


def bucket_notification(cfg: dict) -> dict:
    """``AWS::S3::Bucket`` NotificationConfiguration (CloudFormation shape) → the S3 API shape."""
    out: dict[str, list] = {}
    for cfn_key, api_key, target_cfn, target_api in (
        ("QueueConfigurations", "QueueConfigurations", "Queue", "QueueArn"),
        ("TopicConfigurations", "TopicConfigurations", "Topic", "TopicArn"),
        ("LambdaConfigurations", "LambdaFunctionConfigurations", "Function", "LambdaFunctionArn"),
    ):
        for c in cfg.get(cfn_key) or []:
            item: dict[str, Any] = {target_api: c[target_cfn], "Events": [c["Event"]]}
            rules = (((c.get("Filter") or {}).get("S3Key") or {}).get("Rules")) or []
            if rules:
                item["Filter"] = {"Key": {"FilterRules": [{"Name": r["Name"], "Value": r["Value"]} for r in rules]}}
            out.setdefault(api_key, []).append(item)
    return out
