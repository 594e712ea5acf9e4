from django.apps import AppConfig


class SearchConfig(AppConfig):
    name = "search"

    def ready(self) -> None:
        # Register the task in every process: services start it by name (operations/queueing.py).
        from search import signals, tasks  # noqa: F401

        signals.connect()
