"""The floor of ``bench_coldrequest``: what any Python HTTP Lambda of ours pays for its first
request — import boto3 and the Powertools HTTP resolver, create a DynamoDB client, one GetItem
of a real item (table and key from ``FLOOR_TABLE``/``FLOOR_KEY``)."""
import json
import os

import boto3
from aws_lambda_powertools.event_handler import APIGatewayHttpResolver

app = APIGatewayHttpResolver()


def lambda_handler(event, context):
    client = boto3.client("dynamodb")
    key = {k: {"S": v} for k, v in json.loads(os.environ["FLOOR_KEY"]).items()}
    item = client.get_item(TableName=os.environ["FLOOR_TABLE"], Key=key).get("Item")
    assert item, "the floor reads a real item"
    return {"statusCode": 200, "body": json.dumps({"found": True})}
