"""Crowd-market plumbing: worker-page tokens, and the money ledger against MTurk's fake (chosen in settings).

The ledger runs on a throwaway file SQLite database (WAL, as deployed without PostgreSQL) in a
child process; the concurrent figure delivers every payment task 10 times from 8 threads and
counts the SendBonus calls the fake MTurk received, which must equal the number of rows. The fake is
the one the tests use: every call goes through the real client and boto3, checked against AWS's model.
"""

from __future__ import annotations

import time

from bench._child import ChildError, run_child

# The fake the tests and the demo choose too (annotation/markets/mturk/fake.py).
FAKE_MTURK = "annotation.markets.mturk.fake.fake_client"

CHILD = """
import threading, time, django
django.setup()
from decimal import Decimal
from django.core.management import call_command
from django.db import connection
from django.utils import timezone
call_command("migrate", verbosity=0)
from annotation.ledger import engine, intents
from annotation.models import Assignment, AssignmentState, Hit, Job, Worker
from annotation.markets.mturk.fake import fake_market

job = Job.objects.create(task_type="stance", market="mturk", reward=Decimal("1.50"))
hit = Hit.objects.create(job=job, position=0, assignments_wanted=3, reward=Decimal("1.50"), external_id="H")
worker = Worker.objects.create(market="mturk", external_id="W")
asg = Assignment.objects.create(job=job, hit=hit, worker=worker, state=AssignmentState.APPROVED,
                                external_id="A", accepted_at=timezone.now())

def rows(n, tag):
    return [intents.bonus_intent(asg, Decimal("0.10"), "bench", f"{tag}:{i}").pk for i in range(n)]

market = fake_market()
market.submit("H", "A", "W", status="Approved")  # the work above, as MTurk holds it
t = time.perf_counter(); ids = rows(1000, "seq"); recorded = time.perf_counter() - t
t = time.perf_counter()
for pk in ids:
    engine.execute(pk)
sequential = time.perf_counter() - t
sequential_calls = market.calls["SendBonus"]
ids = rows(200, "conc")
market.calls.clear()
def deliver(chunk):
    for pk in chunk:
        engine.execute(pk)
    connection.close()
work = ids * 10
chunks = [work[i::8] for i in range(8)]
t = time.perf_counter()
threads = [threading.Thread(target=deliver, args=(c,)) for c in chunks]
[th.start() for th in threads]; [th.join() for th in threads]
concurrent = time.perf_counter() - t
print(f"record_rows_per_s={1000 / recorded:.0f} execute_rows_per_s={1000 / sequential:.0f} "
      f"calls={sequential_calls}/1000 concurrent_deliveries_per_s={len(work) / concurrent:.0f} "
      f"concurrent_calls={market.calls['SendBonus']}/200 for {len(work)} deliveries "
      f"bonuses_at_market={len(market.bonuses)}/1200")
"""


def tokens() -> str:
    from annotation.market_interface.base import MarketIds
    from annotation.markets.mturk.identity import DEFAULT_SUBMIT_ORIGINS
    from annotation.web.page_tokens import issue_token, verify_token

    ids = MarketIds(
        "mturk", "A2Z8QB6XQFTQ1D", "3AQN9REUTFGXCRWFMS2HA7Y9KHNDYV", "3PWW", DEFAULT_SUBMIT_ORIGINS[0]
    )
    items = list(range(40))
    started = time.perf_counter()
    for _ in range(2000):
        verify_token(issue_token(ids, 7, items), ids, 7, items)
    elapsed = time.perf_counter() - started
    return f"worker page tokens issued+verified per s (40 items): {2000 / elapsed:.0f}"


def main() -> None:
    print(f"markets {tokens()}", flush=True)
    try:
        figure = run_child(CHILD, extra_env={"MARKET_CLIENTS": f"mturk={FAKE_MTURK}"})[-1]
    except ChildError as error:
        figure = f"failed: {error}"
    print(f"markets ledger on file SQLite: {figure}", flush=True)
