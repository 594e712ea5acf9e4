"""The pipeline's closing steps: aggregate every job, adjudicate a sample, split, release."""

from __future__ import annotations

from dataclasses import asdict

from django.contrib.auth import get_user_model

from aggregation.adjudication import AdjudicationError, adjudicate, draw_sample, sample_accuracy
from aggregation.declared import answer_spelling
from aggregation.models import ItemOutcome
from aggregation.services import AggregationError, aggregate_job, has_aggregation
from annotation.models import Job, JobState
from config.wording import count, listing
from export.claim_splits import assign_claim_splits
from export.models import Release
from export.services import build_release
from export.splits import SplitPlan
from pipeline import candidate_jobs
from pipeline.context import Context, Outcome
from pipeline.models import StepState

ADJUDICATED_TASKS = ("stance", "evidence_verification", "paraphrase_verification")
SIMULATED_EXPERT = "simulated-expert"


def run_jobs(ctx: Context) -> list[Job]:
    return list(Job.objects.filter(pipeline_steps__run=ctx.step.run).distinct().order_by("pk"))


def aggregate_run(ctx: Context) -> Outcome:
    """Report the figures of every complete job of the run, aggregating those not aggregated since they
    completed (each job once, whoever asks first: the completion task, the job's step or this one)."""
    figures = []
    for job in run_jobs(ctx):
        if job.state != JobState.COMPLETE or not has_aggregation(job.task_type):
            continue
        try:
            figures.append(asdict(aggregate_job(job.pk, once=True)))
        except AggregationError as error:
            figures.append({"job_id": job.pk, "task_type": job.task_type, "error": str(error)})
    failed = [f"job {row['job_id']}: {row['error']}" for row in figures if "error" in row]
    message = f"{count(len(figures) - len(failed), 'job')} aggregated"
    if failed:
        message += f"; {len(failed)} failed ({'; '.join(failed)}): see each job's dashboard"
    return Outcome(StepState.DONE, message, {"jobs": figures})


def adjudicate_run(ctx: Context) -> Outcome:
    """Draw a random sample of each job for an expert; list the similar claim pairs (step 2d).

    With the simulated crowd, a simulated expert answers the sample from the known labels, so the
    crowd-vs-expert figure exists in the demo; it is labelled as simulated. With a real crowd the
    step waits until staff have adjudicated the sample in the admin.
    """
    size = int(ctx.params["adjudication_sample"])
    pending = 0
    accuracy = {}
    for job in run_jobs(ctx):
        if job.task_type not in ADJUDICATED_TASKS or not ItemOutcome.objects.filter(job=job).exists():
            continue
        draw_sample(job.pk, size, seed=int(ctx.params["split_seed"]))
        if ctx.step.run.simulated:
            _simulated_expert(job)
        pending += (
            ItemOutcome.objects.filter(job=job, sampled=True).exclude(adjudications__isnull=False).count()
        )
        figure = sample_accuracy(job)
        accuracy[f"{job.task_type} (job {job.pk})"] = {
            "adjudicated": figure.adjudicated,
            "agreeing": figure.agreeing,
            "accuracy": figure.accuracy,
        }
    pairs = candidate_jobs.similar_claim_pairs(ctx.params)
    output = {"sample_accuracy": accuracy, "similar_claim_pairs": pairs[:50], "pairs_total": len(pairs)}
    if pending:
        return Outcome(
            StepState.WAITING,
            f"{count(pending, 'sampled item')} wait for an expert: adjudicate from the home page",
            output,
        )
    return Outcome(StepState.DONE, f"sample adjudicated; {len(pairs)} similar claim pairs listed", output)


def _simulated_expert(job: Job) -> None:
    expert, _ = get_user_model().objects.get_or_create(
        username=SIMULATED_EXPERT, defaults={"first_name": "Simulated", "last_name": "expert (demo)"}
    )
    spell = answer_spelling(job.task_type)  # the worker page's label → the rule's spelling
    sampled = ItemOutcome.objects.filter(job=job, sampled=True).exclude(adjudications__isnull=False)
    for outcome in sampled.select_related("item"):
        known = outcome.item.known_answer
        if not isinstance(known, str):
            continue
        try:
            adjudicate(
                outcome.pk, spell(known), user=expert, note="simulated expert: answers from the known label"
            )
        except AdjudicationError:
            continue


def split_run(ctx: Context) -> Outcome:
    # Claims released before keep their split unless the run asks to split everything afresh.
    plan = SplitPlan(seed=int(ctx.params["split_seed"]))
    report = assign_claim_splits(plan, keep_existing=not ctx.params["resplit"])
    return Outcome(StepState.DONE, f"claims split: {listing(report['counts'])}", {"split": report})


def release_run(ctx: Context) -> Outcome:
    version = ctx.params["version"] or f"pipeline-{ctx.step.run.pk}"
    release = Release.objects.filter(version=version).first() or build_release(
        version,
        notes=f"Built by {ctx.step.run}"
        + (" — simulated crowd, demo data" if ctx.step.run.simulated else ""),
    )
    return Outcome(
        StepState.DONE,
        f"release {release.version}: {len(release.files)} files",
        {"release": release.version},
    )
