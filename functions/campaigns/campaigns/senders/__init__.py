"""Sender identities: the addresses and domains an account may send from (issue #17 item 8)."""
