"""Charts drawn on the server as inline SVG: no script, no CDN, crisp on any screen.

Each chart is a `viewBox` about as wide as a phone's column (320 units), so its text reads at
roughly its nominal size on a phone and the drawing scales to any width. Colours come from
classes styled in static/css/site.css; every chart has a <title> and a <desc> for screen readers.
"""

import math
from collections.abc import Callable, Sequence
from itertools import count

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from .models import shown_rating
from .rating import new_skill

WIDTH = 320
_ids = count(1)


def _number(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def nice_ticks(low: float, high: float, wanted: int = 4) -> list[float]:
    """Round tick values covering [low, high]: steps of 1, 2 or 5 times a power of ten."""
    if high <= low:
        high = low + 1
    raw = (high - low) / wanted
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    start = math.floor(low / step) * step
    ticks = []
    value = start
    while value < high + step * 0.999:
        ticks.append(round(value, 10))
        value += step
    return ticks


def _svg(body: list[str], height: int, title: str, description: str, css_class: str) -> SafeString:
    n = next(_ids)
    return mark_safe(
        f'<svg class="chart {css_class}" viewBox="0 0 {WIDTH} {height}" role="img" '
        f'aria-labelledby="chart-title-{n} chart-desc-{n}" preserveAspectRatio="xMidYMid meet">'
        f'<title id="chart-title-{n}">{escape(title)}</title>'
        f'<desc id="chart-desc-{n}">{escape(description)}</desc>' + "".join(body) + "</svg>"
    )


def line_chart(
    points: Sequence[tuple[str, float]],
    *,
    title: str,
    value_format: Callable[[float], str] = _number,
    fixed_range: tuple[float, float] | None = None,
    baseline: float | None = None,
) -> SafeString:
    """A line over `points` (label, value), in order; the first and last labels on the x axis.

    `fixed_range` pins the y axis (a share from 0 to 1); otherwise it fits the values with a
    margin. `baseline` draws a dashed reference line (the starting rating).
    """
    height, left, right, top, bottom = 180, 44, 12, 14, 26
    values = [value for _, value in points]
    if fixed_range:
        low, high = fixed_range
    else:
        extra = [baseline] if baseline is not None else []
        low, high = min(values + extra), max(values + extra)
        pad = max((high - low) * 0.1, 1)
        low, high = low - pad, high + pad
    ticks = nice_ticks(low, high)
    low, high = min(low, ticks[0]), max(high, ticks[-1])
    plot_w, plot_h = WIDTH - left - right, height - top - bottom

    def x(i: int) -> float:
        return left + (plot_w * i / (len(points) - 1) if len(points) > 1 else plot_w / 2)

    def y(value: float) -> float:
        return top + plot_h * (1 - (value - low) / (high - low))

    body = []
    for tick in ticks:
        body.append(
            f'<line class="chart-grid" x1="{left}" x2="{WIDTH - right}" y1="{y(tick):.1f}" y2="{y(tick):.1f}"/>'
            f'<text class="chart-axis" x="{left - 5}" y="{y(tick) + 4:.1f}" text-anchor="end">'
            f"{escape(value_format(tick))}</text>"
        )
    if baseline is not None:
        body.append(
            f'<line class="chart-baseline" x1="{left}" x2="{WIDTH - right}" '
            f'y1="{y(baseline):.1f}" y2="{y(baseline):.1f}"/>'
        )
    coords = [(x(i), y(value)) for i, (_, value) in enumerate(points)]
    path = " ".join(f"{cx:.1f},{cy:.1f}" for cx, cy in coords)
    floor = top + plot_h
    body.append(
        f'<polygon class="chart-area" points="{coords[0][0]:.1f},{floor} {path} {coords[-1][0]:.1f},{floor}"/>'
        f'<polyline class="chart-line" points="{path}"/>'
    )
    last_x, last_y = coords[-1]
    body.append(f'<circle class="chart-dot" cx="{last_x:.1f}" cy="{last_y:.1f}" r="3.5"/>')
    label_y = last_y - 8 if last_y - 8 > top + 4 else last_y + 16
    body.append(
        f'<text class="chart-value" x="{min(last_x, WIDTH - right):.1f}" y="{label_y:.1f}" '
        f'text-anchor="end">{escape(value_format(values[-1]))}</text>'
    )
    if len(points) == 1:  # a lone point sits in the middle: so does its label
        body.append(
            f'<text class="chart-axis" x="{x(0):.1f}" y="{height - 6}" text-anchor="middle">'
            f"{escape(points[0][0])}</text>"
        )
    else:
        body.append(
            f'<text class="chart-axis" x="{left}" y="{height - 6}">{escape(points[0][0])}</text>'
        )
        body.append(
            f'<text class="chart-axis" x="{WIDTH - right}" y="{height - 6}" text-anchor="end">'
            f"{escape(points[-1][0])}</text>"
        )
    description = (
        f"{len(points)} points from {points[0][0]} ({value_format(values[0])}) "
        f"to {points[-1][0]} ({value_format(values[-1])})."
    )
    return _svg(body, height, title, description, "chart-line-chart")


def bar_chart(bars: Sequence[tuple[str, float | None, str]], *, title: str) -> SafeString:
    """Horizontal bars of shares (0..1): (label, share or None for no data, note on the right).

    Horizontal bars keep their labels readable on a narrow screen however many bars there are.
    """
    row, top, left, right = 30, 6, 64, 86
    height = top * 2 + row * len(bars)
    plot_w = WIDTH - left - right
    body = []
    for i, (label, share, note) in enumerate(bars):
        y = top + i * row
        body.append(
            f'<text class="chart-label" x="{left - 8}" y="{y + 19}" text-anchor="end">{escape(label)}</text>'
            f'<rect class="chart-bar-track" x="{left}" y="{y + 5}" width="{plot_w}" height="18" rx="4"/>'
        )
        if share:
            body.append(
                f'<rect class="chart-bar" x="{left}" y="{y + 5}" width="{plot_w * share:.1f}" '
                f'height="18" rx="4"/>'
            )
        body.append(
            f'<text class="chart-value" x="{left + plot_w + 6}" y="{y + 19}">{escape(note)}</text>'
        )
    description = "; ".join(f"{label}: {note}" for label, _, note in bars) + "."
    return _svg(body, height, title, description, "chart-bar-chart")


def _percent(share: float) -> str:
    return f"{round(share * 100)}%"


def page_charts(stats) -> dict[str, SafeString]:
    """The statistics page's charts (a `selectors.PlayerStats`); a chart without data is left out."""
    drawn = {}
    if stats.rating and len(stats.rating.history) > 1:
        drawn["rating"] = line_chart(
            [(point.label, point.value) for point in stats.rating.history],
            title="Your rating after each match",
            value_format=lambda v: f"{v:.0f}",
            baseline=shown_rating(new_skill().mu),
        )
    if stats.bids:
        drawn["bids"] = bar_chart(
            [
                (
                    f"Bid {line.label}" if line.bid != 5 else line.label,
                    line.made_rate,
                    f"{_percent(line.made_rate)} of {line.count}",
                )
                for line in stats.bids
            ],
            title="Bids made, by level",
        )
    if stats.scored_deals:
        drawn["points"] = bar_chart(
            [
                (
                    line.label,
                    line.rate,
                    f"{_percent(line.rate)} of {line.out_of}" if line.out_of else "–",
                )
                for line in stats.points
            ],
            title="How often your side took each point",
        )
    if len(stats.coach_accuracy) > 1:  # one day is a lone dot under its own label: no line yet
        drawn["coach"] = line_chart(
            [(point.label, point.value) for point in stats.coach_accuracy],
            title="How often you played the coach's choice, by day",
            value_format=_percent,
            fixed_range=(0.0, 1.0),
        )
    return drawn
