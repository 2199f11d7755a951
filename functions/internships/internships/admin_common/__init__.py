"""Mechanics shared by the ADMIN slice's packages: page/limit lists over key queries,
totals from counters (or a bounded COUNT query when filters combine), the query
parameters every admin list accepts."""
