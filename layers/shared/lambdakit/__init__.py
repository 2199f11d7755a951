"""lambdakit: the mechanics the three services share.

Everything here is service-agnostic: each service plugs in its own error format,
envelope and settings. The AWS SDK is reached through botocore clients that ``aws``
creates (no module imports the ``boto3`` package on a request path): ``ddb``/``ddbcalls``
(DynamoDB), ``s3``, ``secrets`` and ``occupancy`` call them; ``ddbtypes`` and ``conditions``
speak DynamoDB's wire format and filter expressions without boto3.
"""
