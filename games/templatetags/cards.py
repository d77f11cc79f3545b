"""The face of a card, drawn the same way wherever one is shown: the table, the replay, the
coach's exercises. A tag rather than an included template because the table is rendered for
every screen at every move with a dozen cards on it, and an include costs several times this."""

from functools import cache

from django import template
from django.utils.html import format_html

from games.core.presenters import card_view

register = template.Library()

FACE = (
    '<span class="{classes}" role="img" aria-label="{name}">\n'
    '  <span class="card-corner"><span class="card-rank">{rank}</span>'
    '<span class="card-suit">{symbol}</span></span>\n'
    '  <span class="card-pip" aria-hidden="true">{symbol}</span>\n'
    '  <span class="card-corner card-corner-end" aria-hidden="true"><span class="card-rank">{rank}'
    '</span><span class="card-suit">{symbol}</span></span>\n'
    "</span>\n"
)


@register.simple_tag
def card_face(card, small: bool = False) -> str:
    """One card face. `card` is a presenters.CardView; `small` for trick and summary sizes."""
    return _face(card.code, small)


@cache  # a face depends on the card and its size only: 104 faces, each built once
def _face(code: str, small: bool) -> str:
    card = card_view(code)
    classes = "card-face" + (" card-red" if card.red else "") + (" card-small" if small else "")
    return format_html(
        FACE, classes=classes, name=card.name, rank=card.rank_label, symbol=card.symbol
    )
