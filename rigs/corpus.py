"""Claims to work on, for tests and benchmarks: clusters of a known stance, one perspective each."""

from __future__ import annotations

from annotation.task_types.builtin_rules import STANCE_5_TO_3
from corpus.models import SIDE_OF, Claim, ClusterMember, Perspective, PerspectiveCluster, Stance5, Status

# The 5-way stance of a claim's clusters, by position, in turn.
STANCES = [Stance5.SUPPORT, Stance5.UNDERMINE, Stance5.MILDLY_SUPPORT, Stance5.UNDERMINE]


def one_member_cluster(
    claim: Claim, position: int, stance: str, perspective: Perspective, status: str = Status.CANDIDATE
) -> PerspectiveCluster:
    """The claim's cluster at `position` with `perspective` its one member, of this 5-way stance; its
    3-way stance and its side follow from it."""
    stance_3 = STANCE_5_TO_3[stance]
    cluster = PerspectiveCluster.objects.create(
        claim=claim,
        position=position,
        stance_5=stance,
        stance_3=stance_3,
        status=status,
        source_side=SIDE_OF[stance_3],
    )
    ClusterMember.objects.create(cluster=cluster, perspective=perspective, position=0)
    return cluster
