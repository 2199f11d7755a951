"""Count AWS calls with a botocore event hook: moved to ``local_runtime/callcount.py`` (the local
runtime's per-request cost log uses it too); this name stays for the benchmarks and tests.

    from bench.callcount import count_calls      # import before clients are created
"""
from local_runtime.callcount import CallCounter, attach, attach_cached, count_calls, count_thread, install

__all__ = ["CallCounter", "attach", "attach_cached", "count_calls", "count_thread", "install"]
