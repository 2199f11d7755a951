import boto3

from bench.callcount import count_calls


def test_counts_calls_and_items(campaigns_app):
    table = campaigns_app.envs["campaigns"].refs["CampaignsTable"]
    ddb = boto3.client("dynamodb")
    for i in range(3):
        ddb.put_item(TableName=table, Item={"pk": {"S": "P"}, "sk": {"S": f"{i}"}})
    with count_calls() as cc:
        ddb.query(TableName=table, KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": {"S": "P"}})
        ddb.get_item(TableName=table, Key={"pk": {"S": "P"}, "sk": {"S": "1"}})
        ddb.get_item(TableName=table, Key={"pk": {"S": "P"}, "sk": {"S": "nope"}})
    assert cc.calls == {"dynamodb.Query": 1, "dynamodb.GetItem": 2}
    assert cc.items_read == 4 and cc.total("dynamodb") == 3 and cc.total("sqs") == 0
    ddb.get_item(TableName=table, Key={"pk": {"S": "P"}, "sk": {"S": "1"}})
    assert cc.total() == 3  # nothing counted outside the block


def test_counts_calls_made_by_handlers(campaigns_app):
    with count_calls() as cc:
        assert campaigns_app.campaigns.get("/health").status == 200
    assert cc.total("dynamodb") == 0  # the health check touches no table
