"""The floor of ``bench_coldrequest``: what any Python HTTP Lambda of ours pays for its first
request — import boto3 and the Powertools HTTP resolver, create a DynamoDB client, one GetItem
of a real item (table and key from ``FLOOR_TABLE``/``FLOOR_KEY``).

``FLOOR_ALSO`` (comma-separated): the design card's binding libraries this run imports as well:
``pydantic`` (a one-field model defined and validated: every function validates its settings
model on its first request, and pydantic builds its schema machinery on the first model), ``jwt`` (PyJWT; the
functions import it as ``lambdakit.pyjwt``, without cryptography: none ships it), ``openpyxl``, ``fpdf`` (fpdf2): how far
above the floor any function using them starts. ``FLOOR_DATA_DIR``: build the client from that cut of botocore's data
(``lambdakit/botodata``, as the functions do) - what the floor itself would cost with it."""
import importlib
import json
import os

import boto3
from aws_lambda_powertools.event_handler import APIGatewayHttpResolver

for _name in filter(None, os.environ.get("FLOOR_ALSO", "").split(",")):
    _mod = importlib.import_module(_name)
    if _name == "pydantic":
        class _One(_mod.BaseModel):
            stage: str

        _One.model_validate({"stage": "prod"})  # the first model: pydantic's lazy schema machinery

app = APIGatewayHttpResolver()


def lambda_handler(event, context):
    if os.environ.get("FLOOR_DATA_DIR"):
        import botocore.session
        from botocore.loaders import Loader

        core = botocore.session.Session()
        core.register_component("data_loader", Loader(extra_search_paths=[os.environ["FLOOR_DATA_DIR"]],
                                                      include_default_search_paths=False))
        client = boto3.session.Session(botocore_session=core).client("dynamodb")
    else:
        client = boto3.client("dynamodb")
    key = {k: {"S": v} for k, v in json.loads(os.environ["FLOOR_KEY"]).items()}
    item = client.get_item(TableName=os.environ["FLOOR_TABLE"], Key=key).get("Item")
    assert item, "the floor reads a real item"
    return {"statusCode": 200, "body": json.dumps({"found": True})}
