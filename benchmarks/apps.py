from django.apps import AppConfig


class BenchmarksConfig(AppConfig):
    # An app only so that `manage.py` finds its commands; it has no models.
    name = "benchmarks"
