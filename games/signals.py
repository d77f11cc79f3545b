"""What the core tells the features, without importing them (they connect in `ready()`)."""

from django.dispatch import Signal

# A public table's listing changed: created, a seat taken or freed, or started. Sent after the
# transaction commits, with `match_id`.
listing_changed = Signal()
