"""Fuzzing every API from its OpenAPI document with schemathesis (``make fuzz``)."""
