"""A Celery worker for bench.workers, whose MTurk is MTurk's fake (chosen in settings) recording every
paid idempotency token in Redis too (so the bench counts market calls across worker processes). Run
with the app's environment:

    python -m bench._fake_market_worker NAME
"""

from __future__ import annotations

import os
import sys
from decimal import Decimal
from functools import cache

import django
import redis

CALLS_KEY = "bench:market-calls"
# How many times a worker began a payment task: each payment's deliveries, counted where they run.
DELIVERIES_KEY = "bench:payment-deliveries"
PAYMENT_TASK = "annotation.execute_ledger_entry"


@cache
def recording_client() -> object:
    """MTurk's fake, whose every paid token is also pushed to Redis (what MARKET_CLIENTS names here)."""
    from annotation.markets.mturk.client import Outcome
    from annotation.markets.mturk.fake import ApprovingMTurk

    class RecordingMTurk(ApprovingMTurk):
        redis = redis.Redis.from_url(os.environ["REDIS_URL"])

        def send_bonus(self, worker: str, ref: str, amount: Decimal, reason: str, token: str) -> Outcome:
            self.redis.rpush(CALLS_KEY, token)
            return super().send_bonus(worker, ref, amount, reason, token)

    return RecordingMTurk()


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
        ["worker", "--pool", "solo", "--hostname", f"{name}@%h", "--without-mingle", "--without-gossip",
         "--loglevel", "WARNING"]
    )  # fmt: skip


if __name__ == "__main__":
    main(sys.argv[1])
