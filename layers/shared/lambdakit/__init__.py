"""lambdakit: the mechanics the three services share.

Everything here is service-agnostic: each service plugs in its own error format,
envelope and settings. Only ``aws`` and ``ddb`` touch boto3.
"""
