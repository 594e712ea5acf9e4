"""A lab's project, shared by its two tests (test_lab_project.py, test_killed_worker.py): the bounds,
the run's parameters, the import, and what the lab has decided (`Decided.check`: nothing of it lost)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from annotation.models import Job
from corpus.models import Claim
from corpus.perspectrum import CLAIMS, file_names
from corpus.services import import_perspectrum
from crawler.local_site import LocalSite
from export.models import Release
from export.services import perspectrum_records
from pipeline.models import PipelineRun

REPO = Path(__file__).resolve().parents[2]
IMPORTED_CLAIMS = 20  # the release's first claims by cId: enough clusters to merge and split
CRAWLED_PAGES = (  # saved idebate debates with points, served as the lab's site
    "business-economic-policy-economy-general-house-believes-national-minimum-wage",
    "team-sports-house-would-introduce-goal-line-technology-football",
)
WAIT = 180  # seconds: a bound on any one wait (a crawl, a pipeline run), far above what it takes

Fact = tuple[Any, ...]


def facts_of(claims: list[dict[str, Any]]) -> set[Fact]:
    """The released facts of PERSPECTRUM claim records: each (claim, perspective) pair with its labels,
    and each evidence link, per perspective of the cluster holding it."""
    facts: set[Fact] = set()
    for claim in claims:
        for cluster in claim["perspectives"]:
            for pid in cluster["pids"]:
                facts.add(("pair", claim["cId"], pid, cluster["stance_label_3"], cluster["stance_label_5"]))
                facts |= {("link", claim["cId"], pid, eid) for eid in cluster["evidence"]}
    return facts


def corpus_facts() -> set[Fact]:
    return facts_of(perspectrum_records()[CLAIMS])


def release_facts(release: Release) -> set[Fact]:
    return facts_of(json.loads((release.path / file_names(release.version)[CLAIMS]).read_text()))


@dataclass
class Decided:
    """What the lab has decided so far; `check` after each step: nothing of it is lost."""

    facts: set[Fact] = field(default_factory=set)
    removed_by_people: set[Fact] = field(default_factory=set)  # on purpose, since the last check
    rejected_by_people: set[Fact] = field(default_factory=set)  # links a person took out: never back

    def check(self, step: str) -> set[Fact]:
        now = corpus_facts()
        lost = self.facts - self.removed_by_people - now
        assert not lost, f"{step} lost {len(lost)} decided facts, e.g. {sorted(lost)[:8]}"
        back = self.rejected_by_people & now
        assert not back, f"{step} added back {len(back)} links a person removed, e.g. {sorted(back)[:8]}"
        self.facts, self.removed_by_people = now, set()
        return now


def lab_params(site: LocalSite, version: str) -> dict[str, Any]:
    return {
        "crawl": {"start_urls": [f"{site.url}/debatabase/all"]},
        "crowd": {"size": 9, "spammer_share": 0.2, "seed": 3},
        "adjudication_sample": 6,
        "similar_claim_pairs": 5,
        "counter_speech_questions": 4,
        "vast_claims": 1,
        "version": version,
    }


def run_jobs(run: PipelineRun) -> list[Job]:
    return list(Job.objects.filter(pipeline_steps__run=run).distinct().order_by("pk"))


def import_release(directory: Path) -> set[int]:
    """Import the release; the cIds it brought."""
    import_perspectrum(directory)
    imported = set(Claim.objects.values_list("cid", flat=True))
    assert len(imported) == IMPORTED_CLAIMS
    return imported
