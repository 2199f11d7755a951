"""Attachments too big for a request: presigned S3 upload, referenced by id in sends."""
