"""Which shared tables this browser came to through an invite (link or code).

Kept in the session: an invite is something a person was given, not something their account
owns, and the numeric id of a table is not an invite. Read by views and by the table's
websocket consumer (the session travels with the websocket's cookie).
"""

SESSION_KEY = "invited_tables"
KEPT = 50  # the most recent invites a session remembers


def remember(session, match_id: int) -> None:
    ids = [i for i in session.get(SESSION_KEY, []) if i != match_id]
    session[SESSION_KEY] = (ids + [match_id])[-KEPT:]


def invited(session) -> frozenset[int]:
    if session is None:
        return frozenset()
    return frozenset(i for i in session.get(SESSION_KEY, []) if isinstance(i, int))
