"""API keys: records, hashing, scopes and roles, bounds, authentication of a bearer key (the routes
that manage keys are ``campaigns.auth.handler``)."""
