"""A Celery worker for bench.workers, whose MTurk is a fake that records every paid idempotency token
in Redis (so the bench counts market calls across worker processes). Run with the app's environment:

    python -m bench._fake_market_worker NAME
"""

from __future__ import annotations

import os
import sys
from decimal import Decimal

import django
import redis

CALLS_KEY = "bench:market-calls"
# How many times a worker began a payment task: each payment's deliveries, counted where they run.
DELIVERIES_KEY = "bench:payment-deliveries"
PAYMENT_TASK = "annotation.execute_ledger_entry"


class RecordingMarket:
    """MTurk as the ledger's gateway uses it: every assignment approved, every bonus paid and recorded."""

    def __init__(self, url: str) -> None:
        self.redis = redis.Redis.from_url(url)

    def get_assignment(self, ref: str) -> object:
        from annotation.markets.mturk.client import MarketAssignment

        return MarketAssignment(ref, "W", "H", "Approved", None, "")

    def send_bonus(self, worker: str, ref: str, amount: Decimal, reason: str, token: str) -> object:
        from annotation.markets.mturk.client import Outcome

        self.redis.rpush(CALLS_KEY, token)
        return Outcome(ref)


def main(name: str) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    from celery.signals import task_prerun

    from annotation.markets.clients import market_clients
    from config.celery import app

    counter = redis.Redis.from_url(os.environ["REDIS_URL"])

    def count_delivery(sender: object = None, **kwargs: object) -> None:
        if getattr(sender, "name", "") == PAYMENT_TASK:
            counter.incr(DELIVERIES_KEY)

    task_prerun.connect(count_delivery, weak=False)
    with market_clients(mturk=RecordingMarket(os.environ["REDIS_URL"])):
        app.worker_main(
            ["worker", "--pool", "solo", "--hostname", f"{name}@%h", "--without-mingle", "--without-gossip",
             "--loglevel", "WARNING"]
        )  # fmt: skip


if __name__ == "__main__":
    main(sys.argv[1])
