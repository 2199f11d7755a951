"""Data protection: the per-person index other packages write under, and the erasure of a person's
records outside the contact item (send records, outbox copies, webhook delivery bodies), run by the
contact's erasure (DELETE /contacts/{id})."""
