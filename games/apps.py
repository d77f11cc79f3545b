from django.apps import AppConfig


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"

    def ready(self):
        # The core (services, tables, dispatch) wakes turns and sweeps through these hooks: it
        # does not import the task layer that enqueues the work.
        from django.db.backends.signals import connection_created
        from django.utils.module_loading import autodiscover_modules

        from games.core import hooks
        from games.tables import services as tables
        from games.web import sweeper, tasks
        from setback_site.private_files import keep_database_private

        # Every app's tasks module is imported as the process starts, as a worker imports them:
        # a task enqueued by name (dispatch.task_named) never imports its module in the middle
        # of a request (the import's garbage cycles made the collector pause there).
        autodiscover_modules("tasks")
        # The SQLite file holds password hashes and addresses: owner-only (issue 45).
        connection_created.connect(keep_database_private, dispatch_uid="private-sqlite")
        hooks.after_change.register(tasks.wake_if_waiting)
        hooks.turn_waiting.register(tasks.wake_turn)
        hooks.stand_in_wanted.register(tasks.enqueue_stand_in)
        hooks.person_turn_stalled.register(tables.wake_overdue_stand_in)
        hooks.in_process_tasks_started.register(sweeper.start_watchdog)
