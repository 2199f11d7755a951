"""Platform settings, audit-log listing and the service-wide controls (rate limits)."""
