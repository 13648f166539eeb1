"""The benchmarks say whether each figure meets the target an issue set for it."""

from bench.core import Figure
from bench.run import format_table


def test_a_time_meets_its_ceiling_by_the_median_not_the_best_sample():
    figure = Figure("check", "us", (40.0, 55.0, 60.0), higher_is_better=False, target=50)
    assert figure.meets_target is False
    assert figure.target_text == "target <= 50 us: NOT MET"
    assert Figure("check", "us", (40.0, 45.0, 60.0), False, 50).meets_target is True


def test_a_rate_meets_its_floor_at_the_target_itself():
    assert Figure("share", "%", (50.0,), target=50).meets_target is True
    assert Figure("share", "%", (49.9,), target=50).target_text == "target >= 50 %: NOT MET"


def test_a_figure_without_a_target_prints_no_verdict():
    figure = Figure("reference", "us", (1.0,), higher_is_better=False)
    assert figure.meets_target is None
    table = format_table("engine", [figure, Figure("party", "ms", (900.0,), False, 1500)], 1.0)
    assert "target" not in table.splitlines()[1]
    assert table.splitlines()[2].endswith("target <= 1,500 ms: met")
