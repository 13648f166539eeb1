"""Find the benchmark suites (bench/bench_*.py), run them, and print their figures."""

import argparse
import importlib
import json
import os
import pkgutil
import platform
import sys
import time
from pathlib import Path

from bench.core import Figure

PREFIX = "bench_"


def suite_names() -> list[str]:
    here = Path(__file__).parent
    return sorted(
        info.name.removeprefix(PREFIX)
        for info in pkgutil.iter_modules([str(here)])
        if info.name.startswith(PREFIX)
    )


def format_table(suite: str, figures: list[Figure], seconds: float) -> str:
    lines = [f"{suite} ({seconds:.1f} s)"]
    width = max(len(f.name) for f in figures)
    unit_width = max(len(f.unit) for f in figures)
    for f in figures:
        better = "higher" if f.higher_is_better else "lower"
        lines.append(
            f"  {f.name:<{width}}  median {f.median:>12,.1f} {f.unit:<{unit_width}}"
            f"  min {f.minimum:>12,.1f}  max {f.maximum:>12,.1f}"
            f"  stdev {f.stdev:>10,.1f}  n={len(f.samples)}  ({better} is better)"
            + (f"  {f.target_text}" if f.target is not None else "")
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    available = suite_names()
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("suites", nargs="*", metavar="SUITE", help=f"any of {available}")
    parser.add_argument("--quick", action="store_true", help="fewer samples, for a smoke run")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)

    unknown = sorted(set(args.suites) - set(available))
    if unknown:
        parser.error(f"unknown suite(s) {unknown}; available: {available}")

    if not args.json:
        # The interpreter's build moves every figure (README, "The two commands"): say which ran.
        print(f"Python {platform.python_version()}, {os.path.realpath(sys.executable)}")
    results: dict[str, list[dict[str, object]]] = {}
    missed: list[str] = []
    for name in args.suites or available:
        module = importlib.import_module(f"bench.{PREFIX}{name}")
        start = time.perf_counter()
        figures = module.run(quick=args.quick)
        seconds = time.perf_counter() - start
        results[name] = [f.as_dict() for f in figures]
        missed += [
            f"{name}: {f.name.strip()}, {f.target_text}" for f in figures if f.meets_target is False
        ]
        if not args.json:
            print(format_table(name, figures, seconds), flush=True)
    if args.json:
        json.dump(results, sys.stdout, indent=2)
        print()
    elif missed:
        print("Targets not met in this run:", *missed, sep="\n  ")
    return 0
