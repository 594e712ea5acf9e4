"""A task type from outside the apps, registered only through `ANNOTATION_TASK_TYPES` in tests.

Is each cluster's original perspective on topic for its claim? An agreed "off topic" majority flags
the perspective (its `quality_flag`), a rejected one clears a flag this task type set; the side a
debate site put the point on plays no part, but a perspective about the weather is the reference.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from decimal import Decimal
from typing import Any

from django.db.models import QuerySet

from annotation.models import Item
from annotation.task_types.base import Defaults, ItemSpec, TaskType, select_clusters
from annotation.task_types.decisions import Decision
from annotation.task_types.rules import CategoricalRule
from corpus.models import Perspective

OFF_TOPIC, ON_TOPIC = "off_topic", "on_topic"
FLAG = "off topic (crowd)"
RULE = CategoricalRule(
    "off-topic", "off-topic", ("OFF_TOPIC", "ON_TOPIC"), frozenset({"OFF_TOPIC"}), spelling=str.upper
)


def known(text: str) -> str:
    return OFF_TOPIC if "weather" in text else ON_TOPIC


class OffTopicTaskType(TaskType):
    slug = "off_topic"
    name = "Off-topic check"
    labels = ((OFF_TOPIC, "Off topic"), (ON_TOPIC, "On topic"))
    defaults = Defaults(groups_per_hit=2, workers_per_item=3, reward=Decimal("0.10"))
    aggregation = RULE

    def select_items(self, filters: Mapping[str, Any], params: Mapping[str, Any]) -> Iterator[ItemSpec]:
        for cluster in select_clusters(filters):
            original = cluster.members.select_related("perspective").get(position=0).perspective
            yield ItemSpec(
                key=f"p{original.pid}",
                group=f"c{cluster.claim.cid}",
                payload={"claim": cluster.claim.text, "perspective": original.text},
                known_answer=known(original.text),
                claim_id=cluster.claim_id,
                perspective_id=original.pk,
                cluster_id=cluster.pk,
            )

    def write_back(self, decisions: Sequence[Decision], rule: str) -> int:
        flagged = [d.perspective_id for d in decisions if d.kept]
        cleared = [d.perspective_id for d in decisions if not d.kept]
        changed = (
            Perspective.objects.filter(pk__in=flagged).exclude(quality_flag=FLAG).update(quality_flag=FLAG)
        )
        return changed + Perspective.objects.filter(pk__in=cleared, quality_flag=FLAG).update(quality_flag="")

    def reference_answers(self, items: QuerySet[Item]) -> dict[int, str]:
        return {pk: known(text) for pk, text in items.values_list("pk", "perspective__text")}


class NotATaskType:
    slug = "not_a_task_type"
