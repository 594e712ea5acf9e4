"""The dataset itself: claims, perspectives, their clusters, evidence, topics, splits.

Public ids (cId, pId, eId) are the release's ids: stable, unique, and separate from database keys.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Stance3(models.TextChoices):
    SUPPORT = "SUPPORT"
    UNDERMINE = "UNDERMINE"
    NOT_VALID = "NOT_VALID"
    NO_MAJORITY = "NO_MAJORITY_LABEL"


class Stance5(models.TextChoices):
    SUPPORT = "SUPPORT"
    MILDLY_SUPPORT = "MILDLY_SUPPORT"
    MILDLY_UNDERMINE = "MILDLY_UNDERMINE"
    UNDERMINE = "UNDERMINE"
    NOT_VALID = "NOT_VALID"
    NO_MAJORITY = "NO_MAJORITY_LABEL"


class Status(models.TextChoices):
    """Where a claim–perspective relation stands in the pipeline."""

    CANDIDATE = "candidate"
    KEPT = "kept"
    REJECTED = "rejected"
    ADJUDICATED = "adjudicated"

    @classmethod
    def released(cls) -> list[str]:
        return [cls.KEPT, cls.ADJUDICATED]


class Origin(models.TextChoices):
    CRAWLED = "crawled"
    PARAPHRASE = "paraphrase"
    WEB = "web"


class Side(models.TextChoices):
    """The side a debate site put a point on: the gold stance known from the crawl."""

    PRO = "pro"
    CON = "con"


# The side a perspective of this 3-way stance stands on.
SIDE_OF: dict[str, Side] = {Stance3.SUPPORT: Side.PRO, Stance3.UNDERMINE: Side.CON}


class Split(models.TextChoices):
    TRAIN = "train"
    DEV = "dev"
    TEST = "test"


class WrittenBy(models.TextChoices):
    """Who wrote a corpus row's current content last (house style rule 21, docs/design/house-style.md)."""

    IMPORT = "import", "release import"
    CRAWL = "crawl", "crawl"
    JOB = "job", "job write-back"
    PERSON = "person", "person"


class Written(models.Model):
    """Provenance of a row's current content: set by every write path through `corpus.provenance`."""

    written_by = models.CharField(
        max_length=8, choices=WrittenBy.choices, default=WrittenBy.IMPORT, db_index=True
    )
    written_ref = models.CharField(
        max_length=200, blank=True, help_text="Which release, crawl run, job or decision wrote it."
    )
    written_by_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    written_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True


class FromRelease(Written):
    """A row a release describes: the digest of what the release said at the last import (the base
    of the three-way merge a re-import makes; blank when no release wrote it)."""

    release_digest = models.CharField(max_length=32, blank=True)

    class Meta:
        abstract = True


class ImportedRelease(models.Model):
    """One import of a release: its files' checksum, and what it changed and left alone."""

    version = models.CharField(max_length=64)
    checksum = models.CharField(max_length=64, db_index=True, help_text="sha256 over the release's files.")
    imported_at = models.DateTimeField(auto_now_add=True)
    report = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-imported_at", "-pk"]

    def __str__(self) -> str:
        return (
            f"PERSPECTRUM v{self.version} ({self.checksum[:12]}) imported {self.imported_at:%Y-%m-%d %H:%M}"
        )


class Topic(models.Model):
    slug = models.SlugField(max_length=64, unique=True)
    name = models.CharField(max_length=128)

    class Meta:
        ordering = ["slug"]

    def __str__(self) -> str:
        return self.name


class Claim(FromRelease):
    cid = models.PositiveIntegerField("cId", unique=True)
    text = models.TextField(blank=True)
    # True for claims known only by id (e.g. listed in topic.json but absent from the release):
    # their text is unknown and is never invented.
    text_missing = models.BooleanField(default=False)
    source = models.CharField(max_length=64, blank=True, db_index=True)
    source_url = models.URLField(max_length=2000, blank=True)
    original_title = models.TextField(blank=True)
    split = models.CharField(max_length=8, choices=Split.choices, blank=True, db_index=True)
    topics: models.ManyToManyField[Topic, ClaimTopic] = models.ManyToManyField(
        Topic, through="ClaimTopic", related_name="claims", blank=True
    )
    # The bases of the claim's topics and of its clusters (members and evidence links included).
    topics_release_digest = models.CharField(max_length=32, blank=True)
    clusters_release_digest = models.CharField(max_length=32, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["cid"]

    def __str__(self) -> str:
        return f"c{self.cid}: {self.text[:80]}" if not self.text_missing else f"c{self.cid} (text missing)"


class ClaimTopic(Written):
    """A claim's topic, ordered as the annotators listed them."""

    claim = models.ForeignKey(Claim, on_delete=models.CASCADE, related_name="claim_topics")
    topic = models.ForeignKey(Topic, on_delete=models.PROTECT, related_name="+")
    position = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["claim", "position"]
        constraints = [
            models.UniqueConstraint(fields=["claim", "topic"], name="claimtopic_unique"),
            models.UniqueConstraint(fields=["claim", "position"], name="claimtopic_position_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.topic_id} #{self.position}"


class Perspective(FromRelease):
    pid = models.PositiveIntegerField("pId", unique=True)
    text = models.TextField()
    origin = models.CharField(max_length=16, choices=Origin.choices, default=Origin.CRAWLED, db_index=True)
    # The release's `source` field, verbatim: idebate, debatewise, procon, google, paraphrase, ...
    source = models.CharField(max_length=64, db_index=True)
    source_url = models.URLField(max_length=2000, blank=True)
    # Why a perspective is held back from annotation (e.g. a debatewise headline that only repeats
    # the body's opening). Flagged perspectives are kept, never deleted.
    quality_flag = models.CharField(max_length=200, blank=True)
    paraphrase_of = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="paraphrases"
    )
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["pid"]

    def __str__(self) -> str:
        return f"p{self.pid}: {self.text[:80]}"


class Evidence(FromRelease):
    eid = models.PositiveIntegerField("eId", unique=True)
    text = models.TextField(blank=True)
    # Evidence referenced by a cluster whose text we do not have (the v1.0 evidence pool is
    # not shipped): the id is kept, the text is never invented.
    text_missing = models.BooleanField(default=False)
    source = models.CharField(max_length=64, blank=True, db_index=True)
    source_url = models.URLField(max_length=2000, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["eid"]
        verbose_name_plural = "evidence"

    def __str__(self) -> str:
        return f"e{self.eid}: {self.text[:80]}" if not self.text_missing else f"e{self.eid} (text missing)"


class PerspectiveCluster(Written):
    """A claim's stance toward one perspective and the perspectives equivalent to it.

    This is the claim–perspective relation: the stance labels, votes, agreement and status
    belong to the cluster, whose first member is the original perspective. A crawled
    perspective starts as a one-member candidate cluster; verified paraphrases join it.
    """

    claim = models.ForeignKey(Claim, on_delete=models.CASCADE, related_name="clusters")
    position = models.PositiveIntegerField(help_text="Order among the claim's clusters.")
    stance_3 = models.CharField("3-way stance", max_length=32, choices=Stance3.choices, blank=True)
    stance_5 = models.CharField("5-way stance", max_length=32, choices=Stance5.choices, blank=True)
    # [support, mildly support, mildly undermine, undermine, not valid], the release's order.
    voter_counts = models.JSONField(default=list, blank=True)
    agreement = models.FloatField(null=True, blank=True, help_text="ρ, the per-item agreement.")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.CANDIDATE, db_index=True)
    source_side = models.CharField(
        max_length=8, choices=Side.choices, blank=True, help_text="The crawled side, when known."
    )
    rule = models.CharField(
        max_length=200, blank=True, help_text="The rule and threshold that decided the status."
    )
    perspectives: models.ManyToManyField[Perspective, ClusterMember] = models.ManyToManyField(
        Perspective, through="ClusterMember", related_name="clusters"
    )
    evidence: models.ManyToManyField[Evidence, ClusterEvidence] = models.ManyToManyField(
        Evidence, through="ClusterEvidence", related_name="clusters", blank=True
    )
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["claim", "position"]
        constraints = [models.UniqueConstraint(fields=["claim", "position"], name="cluster_position_unique")]

    def __str__(self) -> str:
        return f"cluster {self.position} of c{self.claim.cid}"


class ClusterMember(Written):
    cluster = models.ForeignKey(PerspectiveCluster, on_delete=models.CASCADE, related_name="members")
    perspective = models.ForeignKey(Perspective, on_delete=models.PROTECT, related_name="memberships")
    position = models.PositiveSmallIntegerField(help_text="0 is the original perspective.")

    class Meta:
        ordering = ["cluster", "position"]
        constraints = [
            models.UniqueConstraint(fields=["cluster", "perspective"], name="member_unique"),
            models.UniqueConstraint(fields=["cluster", "position"], name="member_position_unique"),
        ]

    def __str__(self) -> str:
        return f"member {self.position} of cluster {self.cluster_id}"


class ClusterEvidence(Written):
    cluster = models.ForeignKey(PerspectiveCluster, on_delete=models.CASCADE, related_name="evidence_links")
    evidence = models.ForeignKey(Evidence, on_delete=models.PROTECT, related_name="cluster_links")
    position = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["cluster", "position"]
        verbose_name_plural = "cluster evidence"
        constraints = [
            models.UniqueConstraint(fields=["cluster", "evidence"], name="clusterevidence_unique"),
            models.UniqueConstraint(fields=["cluster", "position"], name="clusterevidence_position_unique"),
        ]

    def __str__(self) -> str:
        return f"evidence {self.position} of cluster {self.cluster_id}"


class Removal(Written):
    """A cluster member or evidence link a person removed (an adjudication, a split, the admin): a job
    never adds it back, and an import leaves the claim's clusters as the platform has them. A person
    adding the row again lifts the removal; deleting the removal here lets jobs add it again."""

    cluster = models.ForeignKey(PerspectiveCluster, on_delete=models.CASCADE, related_name="removals")
    perspective = models.ForeignKey(
        Perspective, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    evidence = models.ForeignKey(Evidence, null=True, blank=True, on_delete=models.CASCADE, related_name="+")

    class Meta:
        ordering = ["-written_at", "-pk"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(perspective__isnull=True) ^ models.Q(evidence__isnull=True),
                name="removal_member_or_link",
            ),
            models.UniqueConstraint(
                fields=["cluster", "perspective"],
                condition=models.Q(perspective__isnull=False),
                name="removal_member_unique",
            ),
            models.UniqueConstraint(
                fields=["cluster", "evidence"],
                condition=models.Q(evidence__isnull=False),
                name="removal_link_unique",
            ),
        ]

    def __str__(self) -> str:
        what = f"member {self.perspective_id}" if self.perspective_id else f"evidence {self.evidence_id}"
        return f"{what} removed from cluster {self.cluster_id}"
