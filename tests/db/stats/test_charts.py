"""The SVG charts: scaled to their data, labelled for screen readers, escaped."""

import re

from games.stats import charts


def test_ticks_are_round_and_cover_the_range():
    assert charts.nice_ticks(0, 1) == [0, 0.5, 1.0]
    ticks = charts.nice_ticks(937, 1082)
    assert ticks[0] <= 937 and ticks[-1] >= 1082
    assert all(tick % 50 == 0 for tick in ticks)


def test_bars_are_as_long_as_their_shares_and_say_their_figures():
    svg = charts.bar_chart([("High", 0.5, "50% of 8"), ("Jack", None, "–")], title="Points")
    widths = [
        float(w) for w in re.findall(r'class="chart-bar" x="\d+" y="[\d.]+" width="([\d.]+)"', svg)
    ]
    track = float(
        re.search(r'class="chart-bar-track" x="\d+" y="[\d.]+" width="([\d.]+)"', svg).group(1)
    )
    assert widths == [track / 2]  # no bar at all where there is no data
    assert "50% of 8" in svg and "<title" in svg and "High: 50% of 8; Jack: –." in svg


def test_a_line_runs_through_every_point_with_its_last_value_labelled():
    svg = charts.line_chart(
        [("Start", 1000), ("2024-03-01", 1040), ("2024-03-02", 1010)],
        title="Rating",
        value_format=lambda v: f"{v:.0f}",
        baseline=1000,
    )
    points = re.search(r'<polyline class="chart-line" points="([^"]+)"', svg).group(1).split()
    assert len(points) == 3
    ys = [float(p.split(",")[1]) for p in points]
    assert ys[1] < ys[2] < ys[0]  # higher values are drawn higher
    assert 'class="chart-baseline"' in svg
    assert ">1010</text>" in svg and ">Start</text>" in svg and ">2024-03-02</text>" in svg


def test_labels_are_escaped():
    svg = charts.bar_chart([("<b>", 0.1, "x & y")], title="a < b")
    assert "<b>" not in svg and "&lt;b&gt;" in svg and "x &amp; y" in svg and "a &lt; b" in svg
