"""Create every resource the templates declare in the AWS emulator (moto).

Nothing here keeps its own list of resources: tables, queues (with redrive
policies and DLQs), buckets, user pools and the rest come from parsing the
templates. ``provision`` returns an ``Environment`` that resolves ``Ref`` and
``GetAtt`` to the physical resources and computes each function's environment.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any

from . import cfn
from .stack import ACCOUNT, REGION, Service


@dataclass
class ServiceEnv:
    service: Service
    params: dict[str, Any]
    refs: dict[str, Any] = field(default_factory=dict)
    atts: dict[tuple[str, str], Any] = field(default_factory=dict)

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


def _param_defaults(t: dict, overrides: dict[str, Any]) -> dict[str, Any]:
    out = {k: v.get("Default", "") for k, v in (t.get("Parameters") or {}).items()}
    out.update({k: v for k, v in overrides.items() if k in out})
    return out


def provision(service: Service, params: dict[str, Any] | None = None, *, create: bool = True) -> ServiceEnv:
    """Create the service's resources (``create=False`` only computes names)."""
    import boto3

    se = ServiceEnv(service, _param_defaults(service.template, params or {}))
    res = service.template.get("Resources", {})
    endpoint = os.environ.get("AWS_ENDPOINT_URL")

    def props(lid: str) -> dict:
        return se.resolve(res[lid].get("Properties") or {})

    # Names first, so GetAtt/Ref across resources resolve regardless of order.
    for lid, r in res.items():
        t = r.get("Type")
        p = r.get("Properties") or {}
        if t == "AWS::DynamoDB::Table":
            name = p.get("TableName") if isinstance(p.get("TableName"), str) else f"{service.name}-{lid}"
            se.refs[lid] = name
            se.atts[(lid, "Arn")] = f"arn:aws:dynamodb:{REGION}:{ACCOUNT}:table/{name}"
            se.atts[(lid, "StreamArn")] = f"arn:aws:dynamodb:{REGION}:{ACCOUNT}:table/{name}/stream/local"
        elif t == "AWS::SQS::Queue":
            name = p.get("QueueName") if isinstance(p.get("QueueName"), str) else f"{service.name}-{lid}"
            if p.get("FifoQueue") and not name.endswith(".fifo"):
                name += ".fifo"
            se.atts[(lid, "QueueName")] = name
            se.atts[(lid, "Arn")] = f"arn:aws:sqs:{REGION}:{ACCOUNT}:{name}"
            se.refs[lid] = f"{endpoint or 'https://sqs.' + REGION + '.amazonaws.com'}/{ACCOUNT}/{name}"
        elif t == "AWS::S3::Bucket":
            name = p.get("BucketName") if isinstance(p.get("BucketName"), str) else f"{service.name}-{lid}-local".lower()
            se.refs[lid] = name
            se.atts[(lid, "Arn")] = f"arn:aws:s3:::{name}"
            se.atts[(lid, "DomainName")] = f"{name}.s3.amazonaws.com"
        elif t == "AWS::Serverless::Function":
            name = f"{service.name}-{lid}"
            se.refs[lid] = name
            se.atts[(lid, "Arn")] = f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{name}"
        elif t == "AWS::Serverless::HttpApi":
            se.refs[lid] = f"local-{service.name}"
        elif t in ("AWS::SNS::Topic",):
            se.refs[lid] = f"arn:aws:sns:{REGION}:{ACCOUNT}:{service.name}-{lid}"
        elif t == "AWS::Events::EventBus":
            name = p.get("Name") if isinstance(p.get("Name"), str) else f"{service.name}-{lid}"
            se.refs[lid] = name
            se.atts[(lid, "Arn")] = f"arn:aws:events:{REGION}:{ACCOUNT}:event-bus/{name}"
            se.atts[(lid, "Name")] = name

    if not create:
        return se

    # DynamoDB tables
    ddb = boto3.client("dynamodb", region_name=REGION)
    for lid in service.resources_of("AWS::DynamoDB::Table"):
        p = props(lid)
        kw: dict[str, Any] = {
            "TableName": se.refs[lid], "KeySchema": p["KeySchema"], "AttributeDefinitions": p["AttributeDefinitions"],
            "BillingMode": p.get("BillingMode", "PAY_PER_REQUEST"),
        }
        if kw["BillingMode"] != "PAY_PER_REQUEST":
            kw["ProvisionedThroughput"] = p.get("ProvisionedThroughput", {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5})
        if p.get("GlobalSecondaryIndexes"):
            kw["GlobalSecondaryIndexes"] = p["GlobalSecondaryIndexes"]
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
    sqs = boto3.client("sqs", region_name=REGION)
    queues = service.resources_of("AWS::SQS::Queue")
    for lid in sorted(queues, key=lambda q: "RedrivePolicy" in (queues[q].get("Properties") or {})):
        p = props(lid)
        attrs = {}
        for k in ("VisibilityTimeout", "MessageRetentionPeriod", "DelaySeconds", "ReceiveMessageWaitTimeSeconds",
                  "MaximumMessageSize"):
            if k in p:
                attrs[k] = str(p[k])
        if p.get("RedrivePolicy"):
            attrs["RedrivePolicy"] = json.dumps(p["RedrivePolicy"]) if not isinstance(p["RedrivePolicy"], str) else p["RedrivePolicy"]
        if p.get("FifoQueue"):
            attrs["FifoQueue"] = "true"
            if p.get("ContentBasedDeduplication"):
                attrs["ContentBasedDeduplication"] = "true"
        url = sqs.create_queue(QueueName=se.atts[(lid, "QueueName")], Attributes=attrs)["QueueUrl"]
        se.refs[lid] = url

    # S3 buckets
    s3 = boto3.client("s3", region_name=REGION)
    for lid in service.resources_of("AWS::S3::Bucket"):
        p = props(lid)
        try:
            s3.create_bucket(Bucket=se.refs[lid])
        except (s3.exceptions.BucketAlreadyOwnedByYou, s3.exceptions.BucketAlreadyExists):
            pass
        if p.get("CorsConfiguration"):
            s3.put_bucket_cors(Bucket=se.refs[lid], CORSConfiguration={"CORSRules": p["CorsConfiguration"]["CorsRules"]})
        if p.get("PublicAccessBlockConfiguration"):
            s3.put_public_access_block(Bucket=se.refs[lid],
                                       PublicAccessBlockConfiguration=p["PublicAccessBlockConfiguration"])

    # Cognito user pools, then their clients
    pools = service.resources_of("AWS::Cognito::UserPool")
    if pools:
        idp = boto3.client("cognito-idp", region_name=REGION)
        for lid in pools:
            p = props(lid)
            kw = {"PoolName": p.get("UserPoolName", f"{service.name}-{lid}")}
            for k in ("Policies", "AutoVerifiedAttributes", "UsernameAttributes", "Schema"):
                if k in p:
                    kw[k] = p[k]
            pool = idp.create_user_pool(**kw)["UserPool"]
            se.refs[lid] = pool["Id"]
            se.atts[(lid, "Arn")] = pool["Arn"]
            se.atts[(lid, "ProviderURL")] = f"cognito-idp.{REGION}.amazonaws.com/{pool['Id']}"
        for lid in service.resources_of("AWS::Cognito::UserPoolClient"):
            p = props(lid)
            kw = {"UserPoolId": p["UserPoolId"], "ClientName": p.get("ClientName", f"{service.name}-{lid}")}
            for k in ("ExplicitAuthFlows", "GenerateSecret", "IdTokenValidity", "AccessTokenValidity"):
                if k in p:
                    kw[k] = p[k]
            se.refs[lid] = idp.create_user_pool_client(**kw)["UserPoolClient"]["ClientId"]

    # Secrets and parameters (values from the template; real deployments set their own)
    for lid in service.resources_of("AWS::SecretsManager::Secret"):
        p = props(lid)
        sm = boto3.client("secretsmanager", region_name=REGION)
        name = p.get("Name", f"{service.name}-{lid}")
        secret = p.get("SecretString") or os.urandom(16).hex()
        try:
            arn = sm.create_secret(Name=name, SecretString=secret)["ARN"]
        except sm.exceptions.ResourceExistsException:
            arn = sm.describe_secret(SecretId=name)["ARN"]
        se.refs[lid] = arn
    for lid in service.resources_of("AWS::SSM::Parameter"):
        p = props(lid)
        ssm = boto3.client("ssm", region_name=REGION)
        name = p.get("Name", f"/{service.name}/{lid}")
        ssm.put_parameter(Name=name, Value=str(p.get("Value", "")), Type=p.get("Type", "String"), Overwrite=True)
        se.refs[lid] = name

    # EventBridge buses
    for lid in service.resources_of("AWS::Events::EventBus"):
        ev = boto3.client("events", region_name=REGION)
        try:
            ev.create_event_bus(Name=se.refs[lid])
        except ev.exceptions.ResourceAlreadyExistsException:
            pass

    # SESv2 configuration sets and identities
    for lid in service.resources_of("AWS::SES::ConfigurationSet"):
        p = props(lid)
        se.refs[lid] = p.get("Name", f"{service.name}-{lid}")
    return se
