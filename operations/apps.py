from django.apps import AppConfig


class OperationsConfig(AppConfig):
    name = "operations"
    verbose_name = "Background operations"

    def ready(self) -> None:
        # config is no app, so the app about running a deployment registers its checks
        # (`check --deploy`): system checks register on import.
        from config import checks  # noqa: F401
