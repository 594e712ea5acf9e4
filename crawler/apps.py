from django.apps import AppConfig


class CrawlerConfig(AppConfig):
    name = "crawler"

    def ready(self) -> None:
        # Register the tasks in every process: services start them by name (operations/queueing.py).
        from crawler import tasks  # noqa: F401
