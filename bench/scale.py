"""A corpus 100× PERSPECTRUM: synthetic corpora of 10k and 100k claims made of its real texts
(bench._synthetic), each in a fresh PostgreSQL database. Figures per size: import, export, the admin's
claim and perspective lists, the embedded search index build and BM25 query p95, and a release build;
then the cost of each per 10× growth (1 is linear).

Goals at 100k claims: import ≤ 5 min on PostgreSQL, export ≤ 60 s, admin list ≤ 300 ms, embedded
BM25 p95 ≤ 50 ms. Elasticsearch runs only through docker-compose.yml (no server here): its figures
are not measured by this machine.
"""

from __future__ import annotations

import re

from bench._child import ChildError, run_child
from rigs import serving
from rigs.databases import scratch_database

SIZES = (10_000, 100_000)
GOALS = {
    "import_s": 300.0,
    "export_s": 60.0,
    "admin_claims_ms": 300.0,
    "admin_perspectives_ms": 300.0,
    "bm25_p95_ms": 50.0,
}

CHILD = """
import os, statistics, tempfile, time
from pathlib import Path
import django
django.setup()
from django.conf import settings
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client
from bench._synthetic import write_synthetic_release
from corpus.models import Claim
from corpus.services import import_perspectrum
from export.services import build_release, export_perspectrum
from search.base import Kind
from search.services import get_backend, rebuild_index

call_command("migrate", verbosity=0)
size = int(os.environ["SIZE"])
release = Path(os.environ["OUT"]) / "synthetic"
made = write_synthetic_release(Path(os.environ["RELEASE"]), size, release)

def timed(call):
    started = time.perf_counter()
    call()
    return time.perf_counter() - started

figures = {"import_s": timed(lambda: import_perspectrum(release))}
figures["export_s"] = timed(lambda: export_perspectrum("1.0", Path(os.environ["OUT"]) / "export"))
client = Client()
client.force_login(User.objects.create_superuser("bench", "b@example.org", "bench-password-0"))
lists = {"admin_claims_ms": "/admin/corpus/claim/", "admin_perspectives_ms": "/admin/corpus/perspective/"}
for name, url in lists.items():
    client.get(url)  # warm
    figures[name] = 1000 * statistics.median(timed(lambda: client.get(url)) for _ in range(5))
figures["index_s"] = timed(rebuild_index)
backend = get_backend()
queries = list(Claim.objects.order_by("text").values_list("text", flat=True).distinct()[:200])
times = sorted(timed(lambda q=q: backend.search(Kind.PERSPECTIVE, q, 15)) for q in queries)
figures["bm25_p95_ms"] = 1000 * times[int(0.95 * len(times)) - 1]
figures["release_s"] = timed(lambda: build_release("synthetic-1"))
print(" ".join(f"{key}={value}" for key, value in made.items()))
print(" ".join(f"{key}={value:.3f}" for key, value in figures.items()))
"""


def main(sizes: tuple[int, ...] = SIZES) -> None:
    database_url, redis_url = serving.service_urls()
    if problem := serving.unreachable(database_url, redis_url):
        print(f"scale: not run: needs PostgreSQL ({problem})", flush=True)
        return
    measured: dict[int, dict[str, float]] = {}
    for size in sizes:
        with scratch_database("scale", database_url) as scratch:
            try:
                made, figures = run_child(CHILD, scratch, {"SIZE": str(size), "SEARCH_SYNC": "false"})[-2:]
            except ChildError as error:
                print(f"scale {size} claims: failed: {error}", flush=True)
                return
        measured[size] = {key: float(value) for key, value in re.findall(r"(\w+)=([\d.]+)", figures)}
        print(f"scale {size} claims ({made}): {figures}", flush=True)
    elastic = "no Elasticsearch server or Docker engine runs here; `docker compose up` runs it"
    print(f"scale elasticsearch: not measured: {elastic}", flush=True)
    largest = max(measured)
    for key, goal in GOALS.items():
        value = measured[largest][key]
        verdict = "met" if value <= goal else f"MISSED by {value - goal:.1f}"
        print(f"scale {largest} claims {key}={value:.1f} goal <= {goal:g}: {verdict}", flush=True)
    if len(measured) > 1:
        small = min(measured)
        steps = len(str(largest // small)) - 1 or 1  # factors of ten between the sizes
        growth = {
            key: (measured[largest][key] / max(measured[small][key], 1e-9)) ** (1 / steps)
            for key in measured[largest]
        }
        print(
            "scale cost per 10x growth (1 = flat, 10 = linear): "
            + " ".join(f"{key}=x{value:.1f}" for key, value in growth.items()),
            flush=True,
        )
