"""The Jinja environment of the live table's template (templates/jinja2/games/_table.html).

The table is rendered for every screen at every move, and Django's template engine spent a
third of a web process's CPU on it (issue 31); Jinja compiles a template to Python once. Every
other page stays a Django template. The table's template gets what its Django version had:
url() for {% url %}, card_face() for the card tag, csrf_input when there is a request.
"""

from django.urls import reverse
from jinja2 import Environment

from games.templatetags.cards import card_face


def url(name: str, *args) -> str:
    return reverse(name, args=args)


def environment(**options) -> Environment:
    env = Environment(**options)
    env.globals.update(url=url, card_face=card_face)
    return env
