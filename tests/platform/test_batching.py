"""``lambdakit.batching.runs``: the one count-and-size batcher (SQS bulk batches, exam snapshots)."""
from lambdakit.batching import runs


def test_runs_bounded_by_count_and_size_in_order():
    items = ["aa", "bbb", "c", "dddd", "ee", "ffffffffff", "g"]
    out = runs(items, most=3, max_bytes=6, size_of=len)
    assert out == [["aa", "bbb", "c"], ["dddd", "ee"], ["ffffffffff"], ["g"]]
    assert [x for r in out for x in r] == items
    assert runs([], most=3, max_bytes=6, size_of=len) == []
