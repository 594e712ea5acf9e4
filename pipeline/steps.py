"""One function per pipeline step: each reads the run's parameters, calls the apps' services, and
says whether the step is done or waiting for a crowd. Each can run again and continues where it
stopped (jobs are reused, crawls and collections are idempotent)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from django.conf import settings

from aggregation.adaptive_rounds import adaptive_summary, is_adaptive, next_round
from aggregation.services import aggregate_job, has_aggregation
from annotation.models import Job, JobState
from annotation.work.accuracy import bonus_correct_answers, job_accuracy
from annotation.work.jobs import job_progress, publish_job, sync_job
from annotation.work.paraphrases import collect_paraphrases
from config.wording import count, figure
from crawler import services as crawler
from crawler.models import CrawlRun, RunStatus
from export.vast import VastExportError, export_vast
from export.vast_rows import describe_types
from pipeline import candidate_jobs, review
from pipeline.context import Context, Outcome, StepError
from pipeline.models import StepState
from search.services import SearchConfigError

MAX_ROUNDS = 20  # an adaptive job asks at most max_workers − min_workers more rounds


def drive(job: Job) -> bool:
    """Publish and sync a job; aggregate it once complete. True when its results are written back.
    An adaptive job's completed round gives its open items another round first; the simulated crowd
    answers each at once, a real crowd leaves the step waiting."""
    if job.state == JobState.DRAFT:
        job = publish_job(job.pk)
    for _ in range(MAX_ROUNDS):
        if job.state not in JobState.finished():
            job = sync_job(job.pk)
        if job.state != JobState.COMPLETE:
            return False
        if not is_adaptive(job):
            break
        next_round(job.pk)  # unless the completion task already did
        job.refresh_from_db()
        if job.state == JobState.COMPLETE:
            break
    else:
        return False
    if has_aggregation(job.task_type):
        aggregate_job(job.pk, once=True)  # unless the completion task (or an earlier call) did
    return True


def job_step(ctx: Context, key: str, create: Callable[[], Job | None]) -> Outcome:
    job = ctx.job(key, create)
    if job is None:
        return Outcome(StepState.DONE, "nothing to annotate")
    if not drive(job):
        progress = job_progress(job)
        return Outcome(
            StepState.WAITING, f"job {job.pk}: {progress.assignments_done}/{progress.assignments_wanted}"
        )
    if not has_aggregation(job.task_type):
        return Outcome(
            StepState.DONE, f"job {job.pk} complete (written answers are collected, not aggregated)"
        )
    return Outcome(StepState.DONE, f"job {job.pk} complete and aggregated{_adaptive_figures(job)}")


def _adaptive_figures(job: Job) -> str:
    summary = adaptive_summary(job)
    if summary is None:
        return ""
    return (
        f"; adaptive: {count(summary.labels, 'label')} for {count(summary.items, 'item')}, "
        f"{count(summary.labels_saved, 'label')} saved against {summary.policy.max_workers} per item"
    )


# α needs an item with two answers; say so rather than print a missing number.
NO_ALPHA = "not computable (no item with two answers)"


def finished_job(ctx: Context, key: str, outcome: Outcome) -> int | None:
    """The step's job once it is complete and aggregated; None while it is not (or there is none)."""
    job_id: int | None = ctx.step.output.get("jobs", {}).get(key)
    return job_id if outcome.state == StepState.DONE else None


# --- the steps -------------------------------------------------------------------------------------


def crawl(ctx: Context) -> Outcome:
    """Start the crawl and return WAITING; each later call polls it, like the job steps poll jobs.

    The crawl is its own process (Twisted's reactor cannot restart in this one), so nothing here
    waits for it and a step that is run again never starts a second crawl of a run still going."""
    options = ctx.params["crawl"]
    if ctx.claims and not options.get("start_urls") and not options.get("serve_fixtures"):
        return Outcome(StepState.DONE, f"{count(len(ctx.claims), 'claim')} given; nothing to crawl")
    run_id = ctx.step.output.get("crawl_run")
    run = CrawlRun.objects.filter(pk=run_id).first() if run_id else None
    if run is not None and run.status in RunStatus.active():
        crawler.fail_dead_runs(site=run.site, mode=run.mode)
        run.refresh_from_db()
    if run is None or run.status in (RunStatus.FAILED, RunStatus.STOPPED):
        run = _start_crawl(ctx, options)
    if run.status in RunStatus.active():
        return Outcome(StepState.WAITING, f"crawl {run.pk} {run.status}: " + _crawl_figures(run))
    if run.status not in (RunStatus.FINISHED, RunStatus.FINISHED_WITH_ERRORS):
        raise StepError(f"crawl {run.pk} ended {run.status}: {run.message}")
    cids = crawler.run_claim_ids(run.pk)
    ctx.params["claims"] = cids
    # Finished with errors: what it crawled goes on, and the message keeps the failed requests in view.
    failed = f" ({run.message})" if run.status == RunStatus.FINISHED_WITH_ERRORS else ""
    message = f"crawl {run.pk}: {_crawl_figures(run)}, {count(len(cids), 'claim')}{failed}"
    return Outcome(StepState.DONE, message, {"claims": cids})


def _crawl_figures(run: CrawlRun) -> str:
    figures = [(run.pages, "page"), (run.items, "debate"), (run.drops, "drop"), (run.errors, "error")]
    return ", ".join(count(number, noun) for number, noun in figures)


def _start_crawl(ctx: Context, options: dict) -> CrawlRun:
    """Create the crawl's run (one active per site and mode: the database refuses a second) and start it."""
    env, extra = dict(os.environ), list[str]()
    try:
        if options.get("serve_fixtures"):
            env, extra = crawler.saved_pages_launch(options["site"])
        run = crawler.create_run(
            options["site"],
            archive=options.get("archive", ""),
            limit=options.get("limit"),
            start_urls=list(options.get("start_urls") or []),
        )
    except crawler.CrawlRequestError as error:
        raise StepError(str(error)) from None
    ctx.step.output["crawl_run"] = run.pk
    ctx.step.save(update_fields=["output"])
    crawler.start_crawl_process(run.pk, env, extra)
    run.refresh_from_db()
    return run


def stance(ctx: Context) -> Outcome:
    """The stance job; with a machine beside the crowd, the crowd's calibration sample first, then the
    machine's routing, then the crowd for the items the machine is not trusted with."""
    # Imported here: it loads scikit-learn, which a run with a machine needs and a starting worker does not.
    from pipeline import machine_stance

    settings = dict(ctx.params.get("stance_machine") or {})
    plan = machine_stance.machine_plan_of(settings)

    def create() -> Job | None:
        return candidate_jobs.stance_job(ctx.claims, ctx.params, "candidate", machine=plan)

    outcome = job_step(ctx, "stance", create)
    job_id = finished_job(ctx, "stance", outcome)
    if plan is None or job_id is None:
        return outcome
    if "machine" not in ctx.step.output:
        said = machine_stance.route_stance_job(Job.objects.get(pk=job_id), settings)
        ctx.step.output["machine"] = said
        ctx.step.save(update_fields=["output"])
        outcome = job_step(ctx, "stance", create)
    if outcome.state == StepState.DONE:
        outcome.message += f"; {ctx.step.output['machine']}"
    return outcome


def paraphrase_writing(ctx: Context) -> Outcome:
    outcome = job_step(ctx, "writing", lambda: candidate_jobs.paraphrase_writing_job(ctx.claims, ctx.params))
    if outcome.state == StepState.DONE and "writing" in ctx.step.output.get("jobs", {}):
        report = collect_paraphrases(ctx.step.output["jobs"]["writing"])
        outcome.message += f"; {report.created} new candidate paraphrases ({report.too_short} too short, "
        outcome.message += f"{report.copies_of_original} copies, {report.duplicates} duplicates dropped)"
    return outcome


def paraphrase_verification(ctx: Context) -> Outcome:
    return job_step(
        ctx, "verification", lambda: candidate_jobs.paraphrase_verification_job(ctx.claims, ctx.params)
    )


def web_perspectives(ctx: Context) -> Outcome:
    try:
        source = candidate_jobs.web_source(ctx.params)
    except SearchConfigError as error:
        # Step 2c is optional: without a web search source the rest of the pipeline still runs.
        return Outcome(StepState.DONE, f"skipped: {error}", {"skipped": str(error)})
    return job_step(ctx, "web", lambda: candidate_jobs.web_perspective_job(ctx.claims, ctx.params, source))


def evidence(ctx: Context) -> Outcome:
    return job_step(ctx, "evidence", lambda: candidate_jobs.evidence_job(ctx.claims, ctx.params))


def counter_speech(ctx: Context) -> Outcome:
    """Counter-speech selection on crawled points; once done, accuracy against the true counterpoints
    and a bonus for each correct answer (none where the market pays no bonuses, as the simulated one)."""
    outcome = job_step(
        ctx, "counter_speech", lambda: candidate_jobs.counter_speech_job(ctx.claims, ctx.params)
    )
    job_id = finished_job(ctx, "counter_speech", outcome)
    if job_id is None:
        return outcome
    found = job_accuracy(job_id)
    bonuses = bonus_correct_answers(job_id)
    mean = found.mean_worker_accuracy
    outcome.message += (
        f"; {found.overall.correct}/{found.overall.answered} answers correct, mean worker accuracy "
        f"{'-' if mean is None else f'{mean:.0%}'}; bonuses: "
        + (bonuses.note or f"{bonuses.paid} paid ({bonuses.amount}), {len(bonuses.refused)} refused")
    )
    return outcome


def topics(ctx: Context) -> Outcome:
    return job_step(ctx, "topics", lambda: candidate_jobs.topic_job(ctx.claims, ctx.params))


def vast(ctx: Context) -> Outcome:
    """The VAST job; once it is done, its CSV (MACE's poor workers left out) under DATA_DIR/vast/."""
    outcome = job_step(ctx, "vast", lambda: candidate_jobs.vast_job(ctx.claims, ctx.params))
    job_id = finished_job(ctx, "vast", outcome)
    if job_id is None:
        return outcome
    path = Path(settings.DATA_DIR) / "vast" / f"run{ctx.step.run_id}-job{job_id}.csv"
    try:
        report = export_vast(job_id, path)
    except VastExportError as error:
        raise StepError(str(error)) from None
    everyone, kept = report.agreement, report.agreement_without_poor
    outcome.message += (
        f"; VAST CSV: {count(report.rows, 'row')} ({describe_types(report.by_type) or 'none'}) at {path}; "
        f"{count(len(report.poor_workers), 'poor worker')} (MACE); Krippendorff's alpha "
        f"{figure(everyone.krippendorff_alpha, missing=NO_ALPHA)} over {count(everyone.items, 'item')}, "
        f"{figure(kept.krippendorff_alpha, missing=NO_ALPHA)} over {count(kept.items, 'item')} "
        "without the poor workers"
    )
    outcome.output = {"vast_csv": str(path), "vast_rows": report.rows, "poor_workers": report.poor_workers}
    return outcome


STEP_FUNCTIONS: dict[str, Callable[[Context], Outcome]] = {
    "crawl": crawl,
    "stance": stance,
    "paraphrase_writing": paraphrase_writing,
    "paraphrase_verification": paraphrase_verification,
    "web_perspectives": web_perspectives,
    "evidence": evidence,
    "counter_speech": counter_speech,
    "topics": topics,
    "vast": vast,
    "aggregate": review.aggregate_run,
    "adjudicate": review.adjudicate_run,
    "split": review.split_run,
    "release": review.release_run,
}
