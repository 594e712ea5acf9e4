"""In-house annotators: staff and invited people log in and work from the queue at /annotate/."""

from __future__ import annotations

from collections.abc import Sequence

from annotation.markets.base import Capabilities, Provider, PublishedHit, SyncReport, WorkQueue
from annotation.models import Hit, Job


class InhouseProvider(Provider):
    name = "inhouse"
    capabilities = Capabilities(logged_in_workers=True)

    def publish(self, job: Job, hits: Sequence[Hit], idempotency_token: str) -> list[PublishedHit]:
        # Nothing to advertise: a published job shows in every annotator's queue.
        return [PublishedHit(hit_pk=hit.pk, external_id=f"inhouse-{hit.pk}") for hit in hits]

    def sync(self, job: Job, queue: WorkQueue) -> SyncReport:
        # Answers arrive through our pages as they are given; there is nothing to pull.
        return SyncReport()
