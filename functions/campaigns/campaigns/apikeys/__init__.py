"""API keys: records, hashing, authentication, management routes."""
