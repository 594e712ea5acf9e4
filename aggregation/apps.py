from django.apps import AppConfig


class AggregationConfig(AppConfig):
    name = "aggregation"

    def ready(self) -> None:
        # Connects to annotation's signals; registers the soft block as a background operation.
        from aggregation import quality, receivers  # noqa: F401
