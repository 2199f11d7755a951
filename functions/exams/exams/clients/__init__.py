"""Clients (tenants): create with subscription and limits in one transaction; list; update."""
