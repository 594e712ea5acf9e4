"""Import and export of the full PERSPECTRUM release, on SQLite and, when reachable, PostgreSQL.

Targets (issue 2): import ≤ 10 s, export ≤ 3 s. Each database gets a fresh throwaway schema.
"""

from __future__ import annotations

import os
import subprocess

from bench._child import ChildError, run_child

POSTGRES_URL = os.environ.get("BENCH_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/stancework_bench")

CHILD = """
import time, django, os
django.setup()
from django.core.management import call_command
from django.test import Client
from django.contrib.auth.models import User
call_command("migrate", verbosity=0)
from corpus.services import import_perspectrum
from export.services import export_perspectrum
t = time.perf_counter(); import_perspectrum(os.environ["RELEASE"]); imported = time.perf_counter() - t
t = time.perf_counter(); import_perspectrum(os.environ["RELEASE"]); reimported = time.perf_counter() - t
t = time.perf_counter(); export_perspectrum("1.0", os.environ["OUT"]); exported = time.perf_counter() - t
user = User.objects.create_superuser("bench", "b@example.org", "bench-password-0")
client = Client(); client.force_login(user)
t = time.perf_counter(); client.get("/admin/corpus/claim/"); listed = time.perf_counter() - t
t = time.perf_counter(); client.get("/admin/corpus/perspective/?q=children")
searched = time.perf_counter() - t
print(f"import_s={imported:.2f} reimport_s={reimported:.2f} export_s={exported:.2f} "
      f"admin_claims_s={listed:.3f} admin_search_s={searched:.3f}")
"""


def run(label: str, database_url: str | None) -> None:
    try:
        figures = run_child(CHILD, database_url)[-1:]
    except ChildError as error:
        figures = [f"failed: {error}"]
    print(f"corpus {label} {' '.join(figures)} (targets: import_s<=10 export_s<=3)", flush=True)


def postgres_ready() -> bool:
    return subprocess.run(["pg_isready", "-h", "127.0.0.1", "-q"], check=False).returncode == 0


def main() -> None:
    run("sqlite", None)
    if not postgres_ready():
        print("corpus postgresql skipped: no server on 127.0.0.1:5432")
        return
    database = POSTGRES_URL.rsplit("/", 1)[1]
    subprocess.run(["dropdb", "-h", "127.0.0.1", "-U", "postgres", "--if-exists", database], check=True)
    subprocess.run(["createdb", "-h", "127.0.0.1", "-U", "postgres", database], check=True)
    try:
        run("postgresql", POSTGRES_URL)
    finally:
        subprocess.run(["dropdb", "-h", "127.0.0.1", "-U", "postgres", "--if-exists", database], check=False)
