"""A new job's rows: its items and gold, bundled into HITs, and the authors fenced off their own
paraphrases — what `create_job` writes once it has checked the parameters and chosen the items."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from annotation.models import Hit, HitItem, Item, Job, WorkerItem, WorkerItemReason
from annotation.planning.bundling import Grouped, bundle, mix_gold
from annotation.quality.gold_schedule import QualityPolicy
from annotation.task_types.base import ItemSpec

BATCH = 2000  # rows per INSERT


def store_items(job: Job, specs: list[ItemSpec], *, is_gold: bool) -> list[Item]:
    rows = [
        Item(
            job=job,
            key=spec.key,
            group=spec.group,
            payload=spec.payload,
            is_gold=is_gold,
            known_answer=spec.known_answer,
            claim_id=spec.claim_id,
            perspective_id=spec.perspective_id,
            cluster_id=spec.cluster_id,
            evidence_id=spec.evidence_id,
        )
        for spec in specs
    ]
    return Item.objects.bulk_create(rows, batch_size=BATCH)


def store_hits(job: Job, items: list[Item], gold: list[Item], params: Mapping[str, Any]) -> None:
    bundles = bundle([Grouped(item.pk, item.group) for item in items], int(params["groups_per_hit"]))
    # An adaptive schedule gives each worker their own gold as they take work (annotation.quality).
    per_hit = 0 if QualityPolicy.from_params(params).adaptive else int(params["gold_per_hit"])
    bundles = mix_gold(bundles, [item.pk for item in gold], per_hit, int(params["seed"]))
    reward = Decimal(str(params["reward"]))
    hits = Hit.objects.bulk_create(
        [
            Hit(job=job, position=n, assignments_wanted=job.workers_per_item, reward=reward)
            for n in range(len(bundles))
        ],
        batch_size=BATCH,
    )
    HitItem.objects.bulk_create(
        [
            HitItem(hit=hit, item_id=int(item_pk), position=place)  # type: ignore[call-overload]
            for hit, pks in zip(hits, bundles, strict=True)
            for place, item_pk in enumerate(pks)
        ],
        batch_size=BATCH,
    )


def fence_authors(specs: list[ItemSpec], items: Mapping[str, Item]) -> None:
    """The writer of a paraphrase never verifies it: hold the item for them as already 'seen'."""
    WorkerItem.objects.bulk_create(
        [
            WorkerItem(item=items[spec.key], worker_id=worker_pk, reason=WorkerItemReason.AUTHORED)
            for spec in specs
            for worker_pk in spec.excluded_workers
        ],
        batch_size=BATCH,
        ignore_conflicts=True,
    )
