"""Provider registry: a job names its provider; `ANNOTATION_PROVIDERS` in settings may add or replace."""

from __future__ import annotations

from importlib import import_module

from django.conf import settings

from annotation.providers.base import Provider, ProviderNotAvailableError

DEFAULT_PROVIDERS = {
    "inhouse": "annotation.providers.inhouse.InhouseProvider",
    "simulated": "annotation.providers.simulated.SimulatedProvider",
    "mturk": "annotation.providers.mturk_provider.MTurkProvider",
    "prolific": "annotation.providers.prolific_provider.ProlificProvider",
}


def provider_paths() -> dict[str, str]:
    return {**DEFAULT_PROVIDERS, **getattr(settings, "ANNOTATION_PROVIDERS", {})}


def get_provider(name: str) -> Provider:
    path = provider_paths().get(name)
    if path is None:
        raise ProviderNotAvailableError(f"unknown provider {name!r}; known: {sorted(provider_paths())}")
    module_name, _, class_name = path.rpartition(".")
    try:
        cls = getattr(import_module(module_name), class_name)
    except (ImportError, AttributeError) as error:
        raise ProviderNotAvailableError(f"provider {name!r} is not installed ({error})") from error
    provider: Provider = cls()
    return provider


def provider_choices() -> list[tuple[str, str]]:
    return [(name, name) for name in provider_paths()]
