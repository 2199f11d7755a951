"""Email templates with {{variable}} placeholders."""
