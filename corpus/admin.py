"""Admin for the corpus: claims with their clusters inline, perspectives, evidence, topics.

Every list page runs a fixed number of queries (select_related / prefetch / annotate), so it
stays fast on the full release.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.contrib import admin
from django.db.models import Count, Model, QuerySet
from django.forms import BaseModelFormSet, ModelForm
from django.http import HttpRequest, HttpResponseRedirect
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from config.columns import ReadOnlyRecords, figure_column, table_field
from config.wording import votes
from corpus import provenance, removals
from corpus.models import (
    Claim,
    ClaimTopic,
    ClusterEvidence,
    ClusterMember,
    Evidence,
    ImportedRelease,
    Perspective,
    PerspectiveCluster,
    Removal,
    Stance5,
    Topic,
)
from corpus.provenance import Writer

PROVENANCE_FIELDS = ("written_by", "written_ref", "written_by_user", "written_at")
RELEASE_DIGESTS = ("release_digest", "topics_release_digest", "clusters_release_digest")

# The release's voter_counts order: support, mildly support, mildly undermine, undermine, not valid.
VOTER_COUNT_LABELS = [str(choice.label) for choice in list(Stance5)[:5]]


class PersonEdits:
    """What is changed here is a person's edit: stamped with who and when, which a re-import or a
    re-run then leaves alone (house style rule 21, docs/design/house-style.md). The provenance fields are
    shown, never edited."""

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        own = list(super().get_readonly_fields(request, obj))  # type: ignore[misc]
        return own + [name for name in PROVENANCE_FIELDS if _has_field(self.model, name)]  # type: ignore[attr-defined]

    def get_exclude(self, request: HttpRequest, obj: Any = None) -> list[str]:
        own = list(super().get_exclude(request, obj) or [])  # type: ignore[misc]
        return own + [name for name in RELEASE_DIGESTS if _has_field(self.model, name)]  # type: ignore[attr-defined]


def _has_field(model: type[Model], name: str) -> bool:
    return any(field.name == name for field in model._meta.get_fields())


def _stamp(instance: Model, request: HttpRequest) -> None:
    for name, value in Writer.person(request.user, "admin edit").fields().items():
        setattr(instance, name, value)


def _remember_removals(request: HttpRequest, deleted: list[Model]) -> None:
    """Members and evidence links deleted here are a person's removals: no job adds them back."""
    members = {(row.cluster_id, row.perspective_id) for row in deleted if isinstance(row, ClusterMember)}
    links = {(row.cluster_id, row.evidence_id) for row in deleted if isinstance(row, ClusterEvidence)}
    with provenance.writing(Writer.person(request.user, "admin edit")):
        if members:
            removals.remember(ClusterMember, members)
        if links:
            removals.remember(ClusterEvidence, links)


class PersonEditsAdmin(PersonEdits, admin.ModelAdmin):
    def save_model(self, request: HttpRequest, obj: Any, form: ModelForm, change: bool) -> None:
        if form.has_changed() and _has_field(type(obj), "written_by"):
            _stamp(obj, request)
        super().save_model(request, obj, form, change)

    def save_formset(
        self, request: HttpRequest, form: ModelForm, formset: BaseModelFormSet, change: bool
    ) -> None:
        for inline_form in formset.forms:
            if inline_form.has_changed() and _has_field(type(inline_form.instance), "written_by"):
                _stamp(inline_form.instance, request)
        super().save_formset(request, form, formset, change)
        _remember_removals(request, formset.deleted_objects)
        parent = form.instance
        if formset.deleted_objects and _has_field(type(parent), "written_by"):
            _stamp(parent, request)  # its rows (topics, members, links) are part of what it says
            type(parent)._default_manager.filter(pk=parent.pk).update(
                **{name: getattr(parent, name) for name in ("written_by", "written_ref", "written_at")},
                written_by_user_id=parent.written_by_user_id,
            )


class ClaimTopicInline(PersonEdits, admin.TabularInline):
    model = ClaimTopic
    extra = 0
    autocomplete_fields = ["topic"]


class ClusterInline(PersonEdits, admin.TabularInline):
    """A claim's clusters: members (original first), stance, votes, evidence ids."""

    model = PerspectiveCluster
    extra = 0
    fields = [
        "position",
        "members_list",
        "stance_3",
        "stance_5",
        "votes",
        "agreement",
        "status",
        "evidence_list",
    ]
    readonly_fields = ["members_list", "votes", "evidence_list"]
    show_change_link = True

    def get_queryset(self, request: HttpRequest) -> QuerySet[PerspectiveCluster]:
        return (
            super().get_queryset(request).prefetch_related("members__perspective", "evidence_links__evidence")
        )

    @admin.display(description="votes")
    def votes(self, cluster: PerspectiveCluster) -> str:
        return cluster_votes(cluster)

    @admin.display(description="members (original first)")
    def members_list(self, cluster: PerspectiveCluster) -> str:
        return format_html_join(
            "", "<div>p{}: {}</div>", ((m.perspective.pid, m.perspective.text) for m in cluster.members.all())
        )

    @admin.display(description="evidence")
    def evidence_list(self, cluster: PerspectiveCluster) -> str:
        return ", ".join(f"e{link.evidence.eid}" for link in cluster.evidence_links.all())


@admin.register(Claim)
class ClaimAdmin(PersonEditsAdmin):
    list_display = ["cid", "text", "source", "split", "topic_list", "cluster_count", "text_missing", "trim"]
    list_display_links = ["cid", "text"]
    list_filter = ["source", "split", "topics", "text_missing", "clusters__status"]
    search_fields = ["=cid", "text", "original_title"]
    inlines = [ClaimTopicInline, ClusterInline]
    list_per_page = 100
    show_full_result_count = False
    actions = ["new_job"]

    # It only leads to the new-job form, which checks annotation.add_job itself.
    @admin.action(description="New job for the selected claims (a form first)", permissions=["view"])
    def new_job(self, request: HttpRequest, queryset: QuerySet[Claim]) -> HttpResponseRedirect:
        cids = ",".join(str(cid) for cid in queryset.order_by("cid").values_list("cid", flat=True))
        return HttpResponseRedirect(f"{reverse('jobs:new')}?{urlencode({'claims': cids})}")

    def get_queryset(self, request: HttpRequest) -> QuerySet[Claim]:
        return (
            super()
            .get_queryset(request)
            .annotate(cluster_total=Count("clusters", distinct=True))
            .prefetch_related("claim_topics__topic")
        )

    @admin.display(description="clusters page")
    def trim(self, claim: Claim) -> str:
        """The page where experts merge and split the claim's clusters (the aggregation app's)."""
        return format_html(
            '<a href="{}">merge, split</a>', reverse("aggregation:claim_clusters", args=[claim.cid])
        )

    @admin.display(description="clusters", ordering="cluster_total")
    def cluster_count(self, claim: Claim) -> int:
        return claim.cluster_total  # type: ignore[attr-defined]

    @admin.display(description="topics")
    def topic_list(self, claim: Claim) -> str:
        return ", ".join(link.topic.name for link in claim.claim_topics.all())


class MemberInline(PersonEdits, admin.TabularInline):
    model = ClusterMember
    extra = 0
    raw_id_fields = ["perspective"]


class EvidenceLinkInline(PersonEdits, admin.TabularInline):
    model = ClusterEvidence
    extra = 0
    raw_id_fields = ["evidence"]


def cluster_votes(cluster: PerspectiveCluster) -> str:
    """The release's voter counts with their stance names (the counts alone, if not five)."""
    counts = list(cluster.voter_counts or [])
    if len(counts) != len(VOTER_COUNT_LABELS):
        return ", ".join(str(number) for number in counts) or "no votes"
    return votes(counts, VOTER_COUNT_LABELS)


@admin.register(PerspectiveCluster)
class PerspectiveClusterAdmin(PersonEditsAdmin):
    list_display = [
        "__str__",
        "claim_text",
        "original",
        "stance_3",
        "stance_5",
        "votes",
        "agreement_figure",
        "status",
    ]
    agreement_figure = figure_column("agreement", "agreement")
    list_filter = ["status", "stance_3", "stance_5", "source_side", "claim__source", "claim__split"]
    search_fields = ["=claim__cid", "claim__text", "perspectives__text"]
    raw_id_fields = ["claim"]
    inlines = [MemberInline, EvidenceLinkInline]
    list_per_page = 100
    show_full_result_count = False

    def get_queryset(self, request: HttpRequest) -> QuerySet[PerspectiveCluster]:
        return super().get_queryset(request).select_related("claim").prefetch_related("members__perspective")

    @admin.display(description="votes")
    def votes(self, cluster: PerspectiveCluster) -> str:
        return cluster_votes(cluster)

    @admin.display(description="claim")
    def claim_text(self, cluster: PerspectiveCluster) -> str:
        return cluster.claim.text[:80]

    @admin.display(description="original perspective")
    def original(self, cluster: PerspectiveCluster) -> str:
        members = cluster.members.all()
        return members[0].perspective.text if members else "—"


@admin.register(Perspective)
class PerspectiveAdmin(PersonEditsAdmin):
    list_display = ["pid", "text", "origin", "source", "paraphrase_of_pid", "quality_flag"]
    list_display_links = ["pid", "text"]
    list_filter = ["origin", "source", "clusters__status", "clusters__claim__split"]
    search_fields = ["=pid", "text"]
    raw_id_fields = ["paraphrase_of"]
    list_per_page = 100
    show_full_result_count = False

    def get_queryset(self, request: HttpRequest) -> QuerySet[Perspective]:
        return super().get_queryset(request).select_related("paraphrase_of")

    @admin.display(description="paraphrase of", ordering="paraphrase_of__pid")
    def paraphrase_of_pid(self, perspective: Perspective) -> str:
        original = perspective.paraphrase_of
        return format_html("p{}", original.pid) if original else ""


@admin.register(Evidence)
class EvidenceAdmin(PersonEditsAdmin):
    list_display = ["eid", "text", "source", "text_missing"]
    list_display_links = ["eid", "text"]
    list_filter = ["source", "text_missing"]
    search_fields = ["=eid", "text"]
    list_per_page = 100
    show_full_result_count = False


@admin.register(Topic)
class TopicAdmin(admin.ModelAdmin):
    list_display = ["name", "claim_count"]
    search_fields = ["slug", "name"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Topic]:
        return super().get_queryset(request).annotate(claim_total=Count("claims"))

    @admin.display(description="claims", ordering="claim_total")
    def claim_count(self, topic: Topic) -> int:
        return topic.claim_total  # type: ignore[attr-defined]


@admin.register(ImportedRelease)
class ImportedReleaseAdmin(ReadOnlyRecords, admin.ModelAdmin):
    """Every import of a release, with what it changed and its conflicts; written only by the import."""

    list_display = ["version", "checksum", "imported_at"]
    readonly_fields = ["version", "checksum", "imported_at", "report_table"]
    exclude = ["report"]  # shown as its table: counts by kind, then each conflict
    report_table = table_field("report", "report")


@admin.register(Removal)
class RemovalAdmin(admin.ModelAdmin):
    """Members and evidence links a person removed, which jobs do not add back; deleting one here lets
    jobs add the row again."""

    list_display = ["cluster", "removed", "written_ref", "written_at"]
    list_select_related = ["cluster__claim", "perspective", "evidence"]
    readonly_fields = ["cluster", "perspective", "evidence", *PROVENANCE_FIELDS]
    list_per_page = 100

    @admin.display(description="removed")
    def removed(self, removal: Removal) -> str:
        if removal.perspective is not None:
            return f"member p{removal.perspective.pid}"
        assert removal.evidence is not None
        return f"evidence e{removal.evidence.eid}"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
