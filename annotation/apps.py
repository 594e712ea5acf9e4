from django.apps import AppConfig


class AnnotationConfig(AppConfig):
    name = "annotation"
    verbose_name = "Annotation"

    def import_models(self) -> None:
        # The money ledger's models live in their own room (annotation/ledger/models.py), below the
        # app's models module: Django loads them here, with the app's own, so annotation/models.py
        # never reaches up into the ledger.
        super().import_models()
        from annotation.ledger import models as ledger_models  # noqa: F401
        from annotation.machines import models as machine_models  # noqa: F401

    def ready(self) -> None:
        # System checks register on import; ready() runs once, after every app's models are loaded.
        # market_actions registers the background operations; records names each new worker (pre_save).
        from annotation.markets.mturk import checks as mturk_checks  # noqa: F401
        from annotation.task_types import checks  # noqa: F401
        from annotation.work import market_actions, records  # noqa: F401
