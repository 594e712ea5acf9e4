"""A Celery worker for bench.workers, whose MTurk is MTurk's fake (chosen in settings, the one the tests
use) holding the approved work bench._workers_site records, and recording every bonus call's
idempotency token in Redis too (so the bench counts market calls across worker processes). Run with
the app's environment:

    python -m bench._fake_market_worker NAME
"""

from __future__ import annotations

import os
import sys
from functools import cache
from typing import Any

import django
import redis

CALLS_KEY = "bench:market-calls"
# How many times a worker began a payment task: each payment's deliveries, counted where they run.
DELIVERIES_KEY = "bench:payment-deliveries"
PAYMENT_TASK = "annotation.execute_ledger_entry"


@cache
def recording_client() -> object:
    """MTurk's fake client, each bonus call it hears pushed to Redis too (what MARKET_CLIENTS names here)."""
    from annotation.markets.mturk.fake import fake_client, fake_market
    from bench._workers_site import MARKET_WORK

    calls = redis.Redis.from_url(os.environ["REDIS_URL"])

    def record(operation: str, params: dict[str, Any]) -> None:
        if operation == "SendBonus":
            calls.rpush(CALLS_KEY, params["UniqueRequestToken"])

    market = fake_market()
    market.submit(*MARKET_WORK, status="Approved")  # the work the site records, as MTurk holds it
    market.on_paying = record
    return fake_client()


def main(name: str) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ["MARKET_CLIENTS"] = "mturk=bench._fake_market_worker.recording_client"
    django.setup()
    from celery.signals import task_prerun

    from config.celery import app

    counter = redis.Redis.from_url(os.environ["REDIS_URL"])

    def count_delivery(sender: object = None, **kwargs: object) -> None:
        if getattr(sender, "name", "") == PAYMENT_TASK:
            counter.incr(DELIVERIES_KEY)

    task_prerun.connect(count_delivery, weak=False)
    app.worker_main(
        [
            "worker",
            "--pool",
            "solo",
            "--hostname",
            f"{name}@%h",
            "--without-mingle",
            "--without-gossip",
            "--loglevel",
            "WARNING",
        ]
    )


if __name__ == "__main__":
    main(sys.argv[1])
