"""Benchmarks: `make bench` (or `python -m bench [NAME ...] [--quick] [--json]`).

Every module `bench/bench_<name>.py` is a benchmark suite. It defines

    def run(quick: bool) -> list[bench.core.Figure]

and the runner finds it, runs it and prints its figures (median, spread, samples). Build figures
with the helpers of `bench.core` (`rate`, `duration`). Later work adds engine, preview and PDF
suites the same way.
"""
