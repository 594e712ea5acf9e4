from django.apps import AppConfig


class AggregationConfig(AppConfig):
    name = "aggregation"

    def ready(self) -> None:
        from aggregation import receivers  # noqa: F401  # connects to annotation's signals
