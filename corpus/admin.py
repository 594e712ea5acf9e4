"""Admin for the corpus: claims with their clusters inline, perspectives, evidence, topics.

Every list page runs a fixed number of queries (select_related / prefetch / annotate), so it
stays fast on the full release.
"""

from __future__ import annotations

from django.contrib import admin
from django.db.models import Count, QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from config.wording import votes
from corpus.models import (
    Claim,
    ClaimTopic,
    ClusterEvidence,
    ClusterMember,
    Evidence,
    Perspective,
    PerspectiveCluster,
    Stance5,
    Topic,
)

# The release's voter_counts order: support, mildly support, mildly undermine, undermine, not valid.
VOTER_COUNT_LABELS = [str(choice.label) for choice in list(Stance5)[:5]]


class ClaimTopicInline(admin.TabularInline):
    model = ClaimTopic
    extra = 0
    autocomplete_fields = ["topic"]


class ClusterInline(admin.TabularInline):
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
class ClaimAdmin(admin.ModelAdmin):
    list_display = ["cid", "text", "source", "split", "topic_list", "cluster_count", "text_missing", "trim"]
    list_display_links = ["cid", "text"]
    list_filter = ["source", "split", "topics", "text_missing", "clusters__status"]
    search_fields = ["=cid", "text", "original_title"]
    inlines = [ClaimTopicInline, ClusterInline]
    list_per_page = 100
    show_full_result_count = False

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
        return ", ".join(link.topic.slug for link in claim.claim_topics.all())


class MemberInline(admin.TabularInline):
    model = ClusterMember
    extra = 0
    raw_id_fields = ["perspective"]


class EvidenceLinkInline(admin.TabularInline):
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
class PerspectiveClusterAdmin(admin.ModelAdmin):
    list_display = [
        "__str__",
        "claim_text",
        "original",
        "stance_3",
        "stance_5",
        "votes",
        "agreement",
        "status",
    ]
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
class PerspectiveAdmin(admin.ModelAdmin):
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
class EvidenceAdmin(admin.ModelAdmin):
    list_display = ["eid", "text", "source", "text_missing"]
    list_display_links = ["eid", "text"]
    list_filter = ["source", "text_missing"]
    search_fields = ["=eid", "text"]
    list_per_page = 100
    show_full_result_count = False


@admin.register(Topic)
class TopicAdmin(admin.ModelAdmin):
    list_display = ["slug", "name", "claim_count"]
    search_fields = ["slug", "name"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Topic]:
        return super().get_queryset(request).annotate(claim_total=Count("claims"))

    @admin.display(description="claims", ordering="claim_total")
    def claim_count(self, topic: Topic) -> int:
        return topic.claim_total  # type: ignore[attr-defined]
