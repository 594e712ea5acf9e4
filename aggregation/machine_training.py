"""Training the `local` machine annotator on the project's own decided labels (`manage.py
train_annotator`), and labelling a job's items with it.

The examples are the kept outcomes of the chosen jobs: each item's payload texts that its task type
names for machines (``TaskType.machine_texts``) and the crowd's decided label. For stance they may
instead be the corpus's decided stances of the claims of some splits (an imported release's among
them). Cross-validation keeps an item group (a claim's items) in one fold. The trained classifier
is saved under the var directory, one file per version, and a MachineAnnotator row records what it
is and how it did.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from django.conf import settings

from aggregation.calibration import calibration_error
from aggregation.machines.calibrating import calibrate
from aggregation.machines.local import Example, LocalClassifier, cross_validated, dense_encoder
from aggregation.models import ItemOutcome
from aggregation.rules import KEPT
from annotation.machines.models import MachineAnnotator, MachineBackend
from annotation.machines.services import MachineError, record_machine_labels, register_annotator
from annotation.models import Job
from annotation.task_types.registry import get_task_type
from config.whole_files import whole_file
from corpus.models import ClusterMember, Stance3, Status

FOLDS = 5


@dataclass(frozen=True)
class Decided:
    examples: list[Example]
    labels: list[str]
    groups: list[str]


@dataclass(frozen=True)
class TrainingReport:
    annotator: MachineAnnotator
    examples: int
    cv_accuracy: float
    ece: float  # of its scores as they come
    ece_calibrated: float  # of its scores once calibrated (cross-fitted)
    path: Path

    def describe(self) -> str:
        machine = self.annotator
        return (
            f"trained {machine.name} v{machine.version} ({machine.model_name}) on {self.examples} decided "
            f"items: cross-validated accuracy={self.cv_accuracy:.4f}, ECE of its scores={self.ece:.4f} "
            f"(calibrated: {self.ece_calibrated:.4f}) "
            f"({FOLDS} folds, an item group in one fold) -> {self.path}"
        )


def decided_examples(task_type: str, job_ids: Sequence[int]) -> Decided:
    """The kept decisions of these jobs of ``task_type``, as examples a machine reads."""
    fields = get_task_type(task_type).machine_texts
    if not fields:
        raise MachineError(f"no machine can label {task_type}: its task type names no texts to read")
    allowed = set(get_task_type(task_type).label_values)
    outcomes = ItemOutcome.objects.filter(job_id__in=list(job_ids), job__task_type=task_type, status=KEPT)
    rows = [
        (tuple(str(o.item.payload.get(f, "")) for f in fields), o.fine_label, o.item.group)
        for o in outcomes.select_related("item").order_by("item_id")
        if o.fine_label in allowed
    ]
    examples, labels, groups = (list(column) for column in zip(*rows, strict=True)) if rows else ([], [], [])
    return Decided(examples, labels, groups)


SIDES = (Stance3.SUPPORT.value, Stance3.UNDERMINE.value)
CORPUS_TEXTS = ("claim", "perspective")  # what corpus_stance_examples gives a machine to read


def corpus_stance_examples(splits: Sequence[str], leave_out: Iterable[str] = ()) -> Decided:
    """The original perspective of each kept or adjudicated cluster of the claims in ``splits`` (the
    one whose stance people judged; the other members joined it as paraphrases), with the cluster's
    decided side (SUPPORT or UNDERMINE), as stance examples grouped by claim. A pair with a
    text in ``leave_out`` is left out: a job's own claims and perspectives (a crawled point is often
    word for word a release's) must not be learnt under another claim's wording and then labelled."""
    left_out = set(leave_out)
    members = ClusterMember.objects.filter(
        cluster__claim__split__in=list(splits),
        cluster__claim__text_missing=False,
        cluster__status__in=Status.released(),
        cluster__stance_3__in=SIDES,
        position=0,
    ).order_by("cluster__claim__cid", "cluster__position")
    rows = [
        ((claim, perspective), side, str(cid))
        for cid, claim, perspective, side in members.values_list(
            "cluster__claim__cid", "cluster__claim__text", "perspective__text", "cluster__stance_3"
        )
        if claim not in left_out and perspective not in left_out
    ]
    examples, labels, groups = (list(column) for column in zip(*rows, strict=True)) if rows else ([], [], [])
    return Decided(examples, labels, groups)


def train_local(name: str, task_type: str, job_ids: Sequence[int]) -> TrainingReport:
    """Train, cross-validate, save and register a new version of local machine ``name`` on the kept
    decisions of these jobs."""
    return train_on(name, task_type, decided_examples(task_type, job_ids), {"jobs": list(job_ids)})


def train_from_splits(name: str, task_type: str, splits: Sequence[str]) -> TrainingReport:
    """Train, cross-validate, save and register a new version of local machine ``name`` on the corpus's
    decided stances of the claims of ``splits`` (an imported release's train and dev), for a task type
    that reads a claim and a perspective and labels them with those sides."""
    declared = get_task_type(task_type)
    if declared.machine_texts != CORPUS_TEXTS or not set(SIDES) <= set(declared.label_values):
        raise MachineError(
            f"the corpus holds decided stances ({' or '.join(SIDES)}) of {' and '.join(CORPUS_TEXTS)} "
            f"pairs; {task_type} reads {', '.join(declared.machine_texts) or 'no texts'}: train it with "
            "--from-jobs"
        )
    return train_on(name, task_type, corpus_stance_examples(splits), {"splits": list(splits)})


def train_on(
    name: str, task_type: str, decided: Decided, source: dict[str, object], *, cross_validate: bool = True
) -> TrainingReport:
    """Train, save and register a new version of local machine ``name`` on these examples, cross-
    validated unless told not to (a job's calibration sample measures it anyway); ``source`` (the jobs,
    or the splits) is kept in its settings."""
    names = tuple(sorted(set(decided.labels)))
    if len(names) < 2 or len(set(decided.groups)) < FOLDS:
        raise MachineError(
            f"{len(decided.labels)} decided items in {len(set(decided.groups))} groups with labels "
            f"{list(names)}: training needs two labels and at least {FOLDS} groups"
        )
    figures = held_out_figures(decided, names) if cross_validate else {}
    classifier = LocalClassifier(names, dense_encoder()).fit(decided.examples, decided.labels)
    annotator = register_annotator(
        name,
        task_type,
        MachineBackend.LOCAL,
        f"{classifier.features}+logistic",
        settings={**figures, "labels": list(names), **source, "examples": len(decided.labels)},
    )
    path = save_classifier(classifier, annotator)
    annotator.settings["file"] = path.name
    annotator.save(update_fields=["settings"])
    unknown = float("nan")
    return TrainingReport(
        annotator,
        len(decided.labels),
        figures.get("cv_accuracy", unknown),
        figures.get("ece", unknown),
        figures.get("ece_calibrated", unknown),
        path,
    )


def held_out_figures(decided: Decided, names: tuple[str, ...]) -> dict[str, float]:
    """Cross-validated accuracy, and the ECE of the held-out scores as they are and once calibrated."""
    codes, scores = cross_validated(decided.examples, decided.labels, names, decided.groups, folds=FOLDS)
    right = codes == np.array([names.index(label) for label in decided.labels])
    return {
        "cv_accuracy": float(right.mean()),
        "ece": calibration_error(scores, right),
        "ece_calibrated": calibrate(scores, right).ece,
    }


def classifier_path(annotator: MachineAnnotator) -> Path:
    return Path(settings.VAR_DIR) / "machines" / f"{annotator.name}-v{annotator.version}.pickle"


def save_classifier(classifier: LocalClassifier, annotator: MachineAnnotator) -> Path:
    """Written whole (a reader never sees half a file). The encoder is not saved (the packaged one is
    loaded again)."""
    path = classifier_path(annotator)
    path.parent.mkdir(parents=True, exist_ok=True)
    with whole_file(path, "wb") as out:
        pickle.dump(classifier.without_encoder(), out)
    return path


def load_classifier(annotator: MachineAnnotator) -> LocalClassifier:
    """The saved classifier of a local annotator (our own file, written by save_classifier)."""
    with classifier_path(annotator).open("rb") as saved:
        classifier: LocalClassifier = pickle.load(saved)
    return classifier.with_encoder(dense_encoder() if annotator.model_name.startswith("minilm") else None)


def label_job(annotator: MachineAnnotator, job: Job) -> tuple[int, int, dict[int, float]]:
    """Label the job's items the machine was not trained on: (labels written, items skipped as seen
    in training, each labelled item's score)."""
    fields = get_task_type(job.task_type).machine_texts
    items = list(job.items.order_by("pk").values_list("pk", "payload"))
    examples = [tuple(str(payload.get(f, "")) for f in fields) for _, payload in items]
    classifier = load_classifier(annotator)
    codes, scores, unseen = classifier.label(examples)
    labelled = [
        (pk, classifier.labels[code], score)
        for (pk, _), code, score, keep in zip(items, codes, scores, unseen, strict=True)
        if keep
    ]
    scores_of = {pk: float(score) for pk, _, score in labelled}
    written = record_machine_labels(annotator, job, {pk: label for pk, label, _ in labelled}, scores_of)
    return written, int((~unseen).sum()), scores_of
