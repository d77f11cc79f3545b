from django.apps import AppConfig


class CoachConfig(AppConfig):
    name = "games.coach"
    label = "coach"
    verbose_name = "Coach"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        # The replay shows the coach's marks on a player's own decisions, read from stored reviews.
        from games.core import hooks

        from . import realtime, services
        from .selectors import first_choice, replay_marks
        from .views import panel_html

        hooks.replay_marks.register(replay_marks)
        # The face-up panel says why its best card can differ from the coach's choice.
        hooks.coach_choices.register(first_choice)
        # The core tells the coach of every change; the coach's panel goes with every table,
        # and its events reach the table's socket through the handlers registered here.
        hooks.after_change.register(services.after_change)
        hooks.table_panels.register(panel_html)
        hooks.table_socket_opened.register(services.do_prepare)
        hooks.table_socket_events.register(realtime.CoachReady, realtime.on_coach_ready)
        hooks.table_socket_events.register(realtime.CoachSwitched, realtime.on_coach_switched)
        # Reviews waiting or being computed count in their person's budget (games/core/budget.py).
        hooks.work_in_flight.register(services.reviews_in_flight)
