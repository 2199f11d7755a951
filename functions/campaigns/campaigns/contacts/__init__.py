"""Contacts: CRUD, filters, erasure, import and export."""
