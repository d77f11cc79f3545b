"""How an event's standings write their numbers."""

from django import template

register = template.Library()


@register.filter
def minus_sign(number) -> str:
    """A whole number with a true minus sign (−4, not -4): beside a dash, "2–-4" read badly."""
    return str(number).replace("-", "\u2212")
