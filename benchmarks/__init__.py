"""Side-by-side timings of ``evaluate_run``: ``python -m benchmarks`` (tox -e bench)."""
