"""Formatting for the statistics page: shares as percentages, signed numbers."""

from django import template

register = template.Library()


@register.filter
def percent(share) -> str:
    """0.634 -> "63%"; no data -> an en dash."""
    if share is None:
        return "–"
    return f"{round(share * 100)}%"


@register.filter
def signed(value, digits: int = 0) -> str:
    """+1.3 / −2 / 0, with a true minus sign; no data -> an en dash."""
    if value is None:
        return "–"
    text = f"{abs(value):.{digits}f}"
    if round(value, digits) > 0:
        return f"+{text}"
    if round(value, digits) < 0:
        return f"−{text}"
    return text
