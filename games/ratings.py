"""Where a feature that rates players plugs in, so others can show a rating without importing it.

The statistics app registers its provider in its `AppConfig.ready()`; with none registered
(or for a player never rated) there is simply no rating to show.
"""

from collections.abc import Callable, Iterable

_provider: Callable[[Iterable[int]], dict[int, int]] | None = None


def register_ratings_provider(provider: Callable[[Iterable[int]], dict[int, int]]) -> None:
    global _provider
    _provider = provider


def shown_ratings(user_ids: Iterable[int]) -> dict[int, int]:
    """user id -> the rating shown for them, for the users who have one."""
    ids = list(user_ids)
    if _provider is None or not ids:
        return {}
    return _provider(ids)
