"""Audit trail: mutation rows and authentication events (see ``writer``)."""
