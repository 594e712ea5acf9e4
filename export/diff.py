"""What changed between two releases: claims and perspectives added or removed, claim–perspective pairs
added, removed or relabelled, claims moved between splits. Pure: works on two parsed releases.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from corpus.perspectrum import Release

Labels = tuple[str, str]


@dataclass(frozen=True)
class Relabel:
    claim_id: int
    perspective_id: int
    before: Labels
    after: Labels


@dataclass(frozen=True)
class SplitMove:
    claim_id: int
    before: str
    after: str


# The fields of ReleaseDiff that list changes, in the order the diff page shows their counts, each
# with the words the page uses for it.
CHANGES = {
    "claims_added": "Claims added",
    "claims_removed": "Claims removed",
    "perspectives_added": "Perspectives added",
    "perspectives_removed": "Perspectives removed",
    "pairs_added": "Claim–perspective pairs added",
    "pairs_removed": "Claim–perspective pairs removed",
    "relabelled": "Claim–perspective pairs relabelled",
    "split_moves": "Claims that changed split",
}


@dataclass(frozen=True)
class ReleaseDiff:
    before: str
    after: str
    claims_added: list[int] = field(default_factory=list)
    claims_removed: list[int] = field(default_factory=list)
    perspectives_added: list[int] = field(default_factory=list)
    perspectives_removed: list[int] = field(default_factory=list)
    pairs_added: list[tuple[int, int]] = field(default_factory=list)
    pairs_removed: list[tuple[int, int]] = field(default_factory=list)
    relabelled: list[Relabel] = field(default_factory=list)
    split_moves: list[SplitMove] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        return {name: len(getattr(self, name)) for name in CHANGES}

    def counted(self) -> list[tuple[str, int]]:
        """Each kind of change in words, with how many there are."""
        return [(CHANGES[name], number) for name, number in self.counts().items()]

    @property
    def unchanged(self) -> bool:
        return not any(self.counts().values())


def _pairs(release: Release) -> dict[tuple[int, int], Labels]:
    """(claim id, perspective id) → the (3-way, 5-way) labels of the cluster holding the perspective."""
    pairs: dict[tuple[int, int], Labels] = {}
    for claim in release.claims:
        for cluster in claim["perspectives"]:
            for pid in cluster["pids"]:
                pairs[(claim["cId"], pid)] = (cluster["stance_label_3"], cluster["stance_label_5"])
    return pairs


def _ids(records: list[dict[str, Any]], key: str) -> set[int]:
    return {record[key] for record in records}


def diff(before: Release, after: Release) -> ReleaseDiff:
    old_pairs, new_pairs = _pairs(before), _pairs(after)
    old_claims, new_claims = _ids(before.claims, "cId"), _ids(after.claims, "cId")
    old_pool, new_pool = _ids(before.pool, "pId"), _ids(after.pool, "pId")
    return ReleaseDiff(
        before=before.version,
        after=after.version,
        claims_added=sorted(new_claims - old_claims),
        claims_removed=sorted(old_claims - new_claims),
        perspectives_added=sorted(new_pool - old_pool),
        perspectives_removed=sorted(old_pool - new_pool),
        pairs_added=sorted(new_pairs.keys() - old_pairs.keys()),
        pairs_removed=sorted(old_pairs.keys() - new_pairs.keys()),
        relabelled=[
            Relabel(cid, pid, old_pairs[(cid, pid)], new_pairs[(cid, pid)])
            for cid, pid in sorted(old_pairs.keys() & new_pairs.keys())
            if old_pairs[(cid, pid)] != new_pairs[(cid, pid)]
        ],
        split_moves=[
            SplitMove(int(key), before.split[key], after.split[key])
            for key in sorted(before.split.keys() & after.split.keys(), key=int)
            if before.split[key] != after.split[key]
        ],
    )
