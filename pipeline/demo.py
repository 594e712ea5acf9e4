"""The `make run` demo: a pipeline run over the saved debate pages with the simulated crowd.

Everything it makes is labelled simulated (the run, the workers, the responses, the release notes).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from django.conf import settings

from config.whole_files import whole_file
from corpus.models import Perspective
from crawler.services import saved_pages_dir
from export.models import Release
from pipeline import services
from pipeline.models import PipelineRun, StepRun, StepState
from pipeline.services import StepReport

DEMO_NAME = "demo: saved idebate pages, simulated crowd"
DEMO_STANCE_REDUNDANCY = {
    "redundancy": "adaptive",
    "min_workers": 3,
    "max_workers": 4,
    "stop_posterior": 0.95,
}
# The stance step's local machine beside the crowd, trained on the imported release's train split: at
# TF-IDF's accuracy on stance (about 0.6), expect its page to say why nothing is accepted from it.
DEMO_STANCE_MACHINE = {
    "annotator": "local-stance",
    "target_error": 0.1,
    "confidence": 0.95,
    "calibration_items": 150,
    "train_splits": ["train"],
}
DEMO_VERSION = "demo-1"
# The demo's crawl of the saved pages takes seconds; a small archive crawl, a few minutes.
DEMO_CRAWL_SECONDS = 15 * 60


def web_sentences_file(path: Path) -> Path | None:
    """An offline stand-in for web search: the web sentences PERSPECTRUM's authors collected
    (its pool's `google` perspectives), one page per sentence. None when there are none."""
    rows = Perspective.objects.filter(source="google").order_by("pid").values_list("pid", "text")
    lines = [json.dumps({"url": f"perspectrum:pool/{pid}", "title": "", "text": text}) for pid, text in rows]
    if not lines:
        return None
    path.parent.mkdir(parents=True, exist_ok=True)
    with whole_file(path) as handle:  # a run that reads it meanwhile finds the old file or the new
        handle.write("\n".join(lines) + "\n")
    return path


def demo_params() -> dict[str, object]:
    # With the saved pages: crawl them from a local server. Without: a small, polite archive crawl.
    crawl: dict[str, object] = (
        {"serve_fixtures": True} if saved_pages_dir().is_dir() else {"archive": "2015:2018", "limit": 5}
    )
    web = web_sentences_file(Path(settings.DATA_DIR) / "demo_web_sentences.jsonl")
    # The stance step asks the simulated crowd adaptively (a fourth label only where the decision is
    # open), beside a local machine.
    return {
        "crawl": crawl,
        "web_source_file": str(web or ""),
        "version": DEMO_VERSION,
        "stance_redundancy": DEMO_STANCE_REDUNDANCY,
        "stance_machine": DEMO_STANCE_MACHINE,
    }


def run_demo(on_step_end: StepReport | None = None) -> PipelineRun:
    """Create the demo run once, then run (or continue) it to the end; `on_step_end` hears of each
    step as it ends.

    The crawl step returns WAITING while its crawl process runs: poll it, bounded, like a person
    re-running the step would."""
    run = PipelineRun.objects.filter(name=DEMO_NAME).first() or services.create_run(DEMO_NAME, demo_params())
    report = _once_per_state(on_step_end)
    deadline = time.monotonic() + DEMO_CRAWL_SECONDS
    steps = services.run_all(run.pk, report)
    while _crawl_waiting(steps) and time.monotonic() < deadline:
        time.sleep(1.0)
        steps = services.run_all(run.pk, report)
    return run


def _once_per_state(on_step_end: StepReport | None) -> StepReport:
    """Polling the crawl ends its step (WAITING) every second: pass on each step's state once."""
    told: set[tuple[str, str]] = set()

    def report(step: StepRun) -> None:
        if on_step_end is not None and (step.name, step.state) not in told:
            told.add((step.name, step.state))
            on_step_end(step)

    return report


def done_steps() -> set[str]:
    """The demo run's steps already done: a second `make run` reuses them and says so."""
    done = StepRun.objects.filter(run__name=DEMO_NAME, state=StepState.DONE).values_list("name", flat=True)
    return set(done)


def reused_line(step: StepRun) -> str:
    """What a reused step says: that it was done before, and for the release, every release there is
    now (the demo's own may no longer be the latest)."""
    line = f"  {step.name}: reused — done before ({step.message})"
    if step.name == "release":
        versions = list(Release.objects.order_by("created", "pk").values_list("version", flat=True))
        line += f"; releases now: {', '.join(versions) or 'none'}"
    return line


def _crawl_waiting(steps: list[StepRun]) -> bool:
    return bool(steps) and steps[-1].name == "crawl" and steps[-1].state == StepState.WAITING
