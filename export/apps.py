from django.apps import AppConfig


class ExportConfig(AppConfig):
    name = "export"

    def ready(self) -> None:
        # Registers the release build as a background operation the releases page starts.
        from export import release_builds  # noqa: F401
