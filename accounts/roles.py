"""The four roles, as Django groups with named permissions (the data migration creates them;
docs/design/people.md lists them). Staff status lets a person into the admin; the role decides what they
may do there.
"""

from __future__ import annotations

from typing import Any

SPEND_MONEY = "annotation.spend_money"
START_CRAWL = "crawler.start_crawl"
RUN_PIPELINE = "pipeline.run_pipeline"
ADJUDICATE = "aggregation.add_adjudication"
TRUST_TEMPLATE = "annotation.trust_mturktemplate"
# Letting a worker the live quality checks stopped work in their job again.
REVERSE_STOP = "annotation.reverse_workerstop"
# Letting a free-text answer flagged as pasted or typed too fast into the corpus.
ACCEPT_WRITING = "annotation.accept_writingrecord"


def _crud(app: str, *models: str, actions: tuple[str, ...] = ("view", "add", "change")) -> list[str]:
    return [f"{app}.{action}_{model}" for model in models for action in actions]


ROLES: dict[str, list[str]] = {
    # Corpus, crawls, jobs, aggregation and releases; never money.
    "researcher": [
        *_crud(
            "corpus",
            "claim",
            "perspective",
            "perspectivecluster",
            "clustermember",
            "clusterevidence",
            "evidence",
            "topic",
            "claimtopic",
        ),
        "corpus.view_importedrelease",
        # What people removed from clusters; deleting one lets jobs add the row again.
        "corpus.view_removal",
        "corpus.delete_removal",
        *_crud(
            "crawler",
            "crawlrun",
            "crawlhelper",
            "debate",
            "page",
            "pageversion",
            "point",
            "drop",
            actions=("view",),
        ),
        START_CRAWL,
        *_crud("annotation", "job", "item", "hit", "assignment", "response", "worker"),
        *_crud("annotation", "ledgerentry", "reconciliationissue", actions=("view",)),
        # What the job, worker and item pages show inline (HIT items, quiz results, authorship).
        *_crud("annotation", "hititem", "qualification", "workeritem", "authorship", actions=("view",)),
        "annotation.change_reconciliationissue",
        # Imported MTurk templates and their batches; trusting one lets its scripts run on our origin.
        *_crud("annotation", "mturktemplate"),
        *_crud("annotation", "mturkbatch", actions=("view",)),
        TRUST_TEMPLATE,
        # The live quality checks: each worker's estimates, the stops with their evidence and their calls to
        # the market, reversing one.
        *_crud(
            "annotation", "qualitycheck", "workerstop", "blocklistcall", "writingrecord", actions=("view",)
        ),
        REVERSE_STOP,
        ACCEPT_WRITING,
        # Machine annotators beside the crowd: each with its backend and model, and what it was asked.
        *_crud("annotation", "machineannotator", "machinereply", actions=("view",)),
        *_crud(
            "aggregation", "aggregationrun", "itemoutcome", "workerquality", "adjudication", actions=("view",)
        ),
        "aggregation.add_aggregationrun",
        "aggregation.change_workerquality",
        *_crud("export", "release", actions=("view",)),
        # Building a release from the releases page (it can re-split the claims).
        "export.add_release",
        *_crud("pipeline", "pipelinerun", "steprun"),
        RUN_PIPELINE,
        *_crud("operations", "operation", actions=("view",)),
        *_crud("accounts", "team", "invitation"),
        "accounts.view_auditevent",
    ],
    # The permission to spend money: publish, approve, reject, bonus, extend (and see what they pay).
    "approver": [
        SPEND_MONEY,
        *_crud(
            "annotation", "job", "hit", "assignment", "ledgerentry", "reconciliationissue", actions=("view",)
        ),
        *_crud("operations", "operation", actions=("view",)),
    ],
    # The adjudication queue and trimming (merging, splitting and copying clusters).
    "adjudicator": [
        ADJUDICATE,
        *_crud("aggregation", "itemoutcome", "adjudication", "workerquality", actions=("view",)),
        "aggregation.change_itemoutcome",
        "annotation.view_job",
        *_crud("annotation", "qualitycheck", "workerstop", actions=("view",)),
        *_crud("corpus", "claim", "perspective", "evidence", actions=("view",)),
        "corpus.view_perspectivecluster",
        "corpus.change_perspectivecluster",
    ],
    # Only the worker pages: no permission at all.
    "annotator": [],
}


def ensure_roles(group_model: Any, permission_model: Any, *, strict: bool = True) -> None:
    """Make each role's group hold exactly its permissions (idempotent). Run by the data migration and
    after every migrate or flush, so the groups follow this file.

    ``strict``: a permission the roles name but no model declares fails loudly. The data migration is
    not strict: a model added by a later migration is not there yet, and the migrate's end adds it."""
    for name, perms in ROLES.items():
        group, _ = group_model.objects.get_or_create(name=name)
        chosen = []
        for dotted in perms:
            app_label, codename = dotted.split(".")
            found = permission_model.objects.filter(
                content_type__app_label=app_label, codename=codename
            ).first()
            if found is None and strict:
                raise permission_model.DoesNotExist(f"role {name}: no permission {dotted}")
            if found is not None:
                chosen.append(found)
        group.permissions.set(chosen)
