from django.apps import AppConfig


class AnnotationConfig(AppConfig):
    name = "annotation"
    verbose_name = "Annotation"

    def ready(self) -> None:
        # System checks register on import; ready() runs once, after every app's models are loaded.
        from annotation.markets.mturk import checks as mturk_checks  # noqa: F401
        from annotation.task_types import checks  # noqa: F401
        from annotation.work import market_actions  # noqa: F401  # registers them as background operations
