"""What the core tells the features, without importing them (they connect in `ready()`)."""

from django.dispatch import Signal

# A public table's listing changed: created, a seat taken or freed, or started. Sent after the
# transaction commits, with `match_id`.
listing_changed = Signal()

# The sweeper's clock ticked (every SWEEP_SECONDS, in a worker or the embedded web process):
# features with due times of their own act on the overdue ones.
sweeping = Signal()
