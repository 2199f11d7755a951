"""Contact lists."""
