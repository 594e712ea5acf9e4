"""Where markets send workers: our task page's public https URL for a job."""

from __future__ import annotations

from django.conf import settings
from django.urls import reverse

from annotation.market_interface.errors import MarketConfigError


def task_url(job_id: int) -> str:
    base = str(settings.MARKET_PUBLIC_URL).rstrip("/")
    if not base.startswith("https://"):
        raise MarketConfigError("set MARKET_PUBLIC_URL to the https origin markets send workers to")
    return base + reverse("annotation:job", args=[job_id])
