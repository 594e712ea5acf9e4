from django.apps import AppConfig


class AnnotationConfig(AppConfig):
    name = "annotation"
    verbose_name = "Annotation"

    def ready(self) -> None:
        # System checks register on import; ready() runs once, after every app's models are loaded.
        from annotation import market_checks  # noqa: F401
