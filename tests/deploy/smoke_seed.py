"""Seed the production smoke test's database, run as `python -m tests.deploy.smoke_seed` in its environment.

A staff login (password from SMOKE_ADMIN_PASSWORD), a published MTurk job whose HIT a market worker
can open, and a built release. Prints what the test needs as one JSON object.
"""

from __future__ import annotations

import json
import os

import django

HIT_ID = "3SMOKE0TESTHIT0000000000000000"


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    from django.contrib.auth.models import User
    from django.utils import timezone

    from annotation.models import Job, JobState
    from annotation.work.jobs import create_job
    from corpus.models import Status
    from export.services import build_release
    from export.splits import SplitPlan
    from tests.annotation.factories import make_corpus

    User.objects.create_superuser("smoke-admin", "", os.environ["SMOKE_ADMIN_PASSWORD"])
    make_corpus(claims=4, perspectives=2, status=Status.KEPT)
    job = create_job("stance", {}, market="mturk", params={"completion_code": "SMOKE123"})
    # Published as if MTurk had been told: no market is reached from here.
    Job.objects.filter(pk=job.pk).update(state=JobState.PUBLISHED, published_at=timezone.now())
    job.hits.update(external_id=HIT_ID)
    release = build_release("smoke-1", split_plan=SplitPlan(seed=1))
    print(json.dumps({"job": job.pk, "hit": HIT_ID, "release": release.version}))


if __name__ == "__main__":
    main()
