"""In-house annotators: staff and invited people log in and work from the queue at /annotate/."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from annotation.market_interface.base import Capabilities, Listing, Market, SyncReport, WorkQueue
from annotation.models import Hit, Job


class InhouseMarket(Market):
    name = "inhouse"
    crowd = "in-house annotators"
    capabilities = Capabilities(logged_in_workers=True)

    def publish(self, job: Job, hits: Sequence[Hit], more: int = 0) -> Iterator[Listing]:
        # Nothing to advertise: a published job shows in every annotator's queue.
        for hit in hits:
            yield Listing((hit.pk,), external_id=f"inhouse-{hit.pk}")

    def sync(self, job: Job, queue: WorkQueue) -> SyncReport:
        # Answers arrive through our pages as they are given; there is nothing to pull.
        return SyncReport()
