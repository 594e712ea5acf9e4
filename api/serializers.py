"""What the API reads and writes; ids and labels only, never a raw worker id."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from rest_framework import serializers

from accounts.models import Team
from aggregation.models import RUN_FIGURES, AggregationRun, ItemOutcome
from annotation.market_interface.registry import market_names
from annotation.models import Job
from annotation.task_types import task_type_slugs
from crawler.models import CrawlRun
from crawler.parsing import SITES
from export.models import Release
from operations.models import Operation


class JobSerializer(serializers.ModelSerializer[Job]):
    teams = serializers.SlugRelatedField(
        slug_field="name", many=True, queryset=Team.objects.all(), required=False
    )

    class Meta:
        model = Job
        fields = [
            "id",
            "name",
            "task_type",
            "market",
            "state",
            "filters",
            "params",
            "budget",
            "teams",
            "created",
            "published_at",
            "completed_at",
        ]
        read_only_fields = ["state", "created", "published_at", "completed_at"]


class JobCreateSerializer(serializers.Serializer[Any]):
    name = serializers.CharField(max_length=200, required=False, default="")
    task_type = serializers.ChoiceField(choices=[])
    market = serializers.ChoiceField(choices=[])
    filters = serializers.DictField(required=False, default=dict)
    params = serializers.DictField(required=False, default=dict)
    budget = serializers.DecimalField(
        max_digits=10, decimal_places=2, required=False, allow_null=True, min_value=Decimal("0")
    )
    teams = serializers.SlugRelatedField(
        slug_field="name", many=True, queryset=Team.objects.all(), required=False
    )
    allow_single_worker = serializers.BooleanField(
        required=False,
        default=False,
        help_text="allow one worker per item for a task decided by agreement (a job you will not aggregate)",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["task_type"].choices = task_type_slugs()  # type: ignore[attr-defined]
        self.fields["market"].choices = market_names()  # type: ignore[attr-defined]


class ProgressSerializer(serializers.Serializer[Any]):
    hits = serializers.IntegerField()
    assignments_wanted = serializers.IntegerField()
    assignments_done = serializers.IntegerField()
    responses = serializers.IntegerField()
    fraction = serializers.FloatField()


class ResponseRowSerializer(serializers.Serializer[Any]):
    item = serializers.CharField(help_text="The item's key.")
    worker = serializers.CharField(
        help_text="The worker's keyed pseudonym; raw ids never leave the database."
    )
    label = serializers.CharField()  # type: ignore[assignment]  # a field named like Field.label
    created = serializers.DateTimeField()


class ItemSerializer(serializers.Serializer[Any]):
    key = serializers.CharField()
    group = serializers.CharField()
    is_gold = serializers.BooleanField()
    payload = serializers.DictField()
    responses = serializers.IntegerField()


# What a CSV download reads for each field of a row serializer, in the serializer's order (a test holds
# them to it): plain values from the database, so a download of any size needs no object per row.
ITEM_VALUES = ("key", "group", "is_gold", "payload", "responses_total")
RESPONSE_VALUES = ("item__key", "worker__market", "worker__external_id", "label", "created")


class AggregationRunSerializer(serializers.ModelSerializer[AggregationRun]):
    class Meta:
        model = AggregationRun
        fields = [
            "id",
            "job",
            "trigger",
            "state",
            "error",
            "task_type",
            "rule",
            "label_model",
            *RUN_FIGURES,
            "changed_items",
            "corpus_writes",
            "created",
        ]


class OutcomeSerializer(serializers.ModelSerializer[ItemOutcome]):
    item = serializers.CharField(source="item.key")
    # Named here: the model's field is an array on PostgreSQL only (aggregation.models.LabelCounts).
    counts = serializers.ListField(
        child=serializers.IntegerField(min_value=0),
        help_text=ItemOutcome._meta.get_field("counts").help_text,
        required=False,
    )

    class Meta:
        model = ItemOutcome
        fields = [
            "item",
            "label",
            "fine_label",
            "counts",
            "agreement",
            "status",
            "model_label",
            "model_confidence",
            "contested",
            "reasons",
            "sampled",
        ]


OUTCOME_VALUES = ("item__key", *OutcomeSerializer.Meta.fields[1:])


class ReleaseSerializer(serializers.ModelSerializer[Release]):
    class Meta:
        model = Release
        fields = ["version", "created", "code_version", "files", "zip_sha256", "notes"]


class CrawlRunSerializer(serializers.ModelSerializer[CrawlRun]):
    class Meta:
        model = CrawlRun
        fields = [
            "id",
            "site",
            "mode",
            "archive_from",
            "archive_to",
            "limit",
            "shared",
            "status",
            "pages",
            "items",
            "drops",
            "errors",
            "message",
            "created",
            "started",
            "finished",
        ]
        read_only_fields = fields


class CrawlStartSerializer(serializers.Serializer[Any]):
    site = serializers.ChoiceField(choices=sorted(SITES))
    archive = serializers.CharField(
        required=False, default="", allow_blank=True, max_length=40, help_text="FROM:TO Wayback timestamps"
    )
    limit = serializers.IntegerField(required=False, allow_null=True, min_value=1, max_value=1_000_000)
    shared = serializers.BooleanField(required=False, default=False, help_text="queue in Redis for helpers")
    start_urls = serializers.ListField(
        child=serializers.CharField(max_length=2000),
        required=False,
        default=list,
        max_length=20,
        help_text="listing or debate pages on the site's own hosts; empty: the site's own start page",
    )


class OperationSerializer(serializers.ModelSerializer[Operation]):
    class Meta:
        model = Operation
        fields = ["id", "kind", "label", "state", "done", "total", "log", "error", "created", "finished_at"]


class BlockSerializer(serializers.Serializer[Any]):
    reason = serializers.CharField(
        required=False, allow_blank=True, max_length=200, help_text="Why; kept with the block."
    )


class AggregateSerializer(serializers.Serializer[Any]):
    threshold = serializers.FloatField(required=False, min_value=0.0, max_value=1.0)
    label_model = serializers.CharField(required=False, max_length=32)
