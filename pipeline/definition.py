"""The PERSPECTRUM construction pipeline as one definition (docs/design/construction.md, the steps). Pure
data.

A run goes through these steps in order; each is resumable, so running a step again continues
where it stopped. Job steps publish a crowd job and wait for it; with the simulated crowd they
finish at once, with a real crowd they report progress until the crowd is done.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Step:
    name: str
    title: str
    summary: str


STEPS: tuple[Step, ...] = (
    Step(
        "crawl",
        "Crawl",
        "Spiders collect debates: motion → claim, points → perspectives, bodies → evidence.",
    ),
    Step("stance", "Stance verification", "Workers label each claim–perspective pair on 5 labels."),
    Step(
        "paraphrase_writing",
        "Paraphrase writing",
        "Workers write paraphrases of kept perspectives, with hints.",
    ),
    Step("paraphrase_verification", "Paraphrase verification", "Workers judge candidate paraphrases."),
    Step(
        "web_perspectives",
        "Web perspectives",
        "Web sentences similar to claim + perspective, labelled for stance.",
    ),
    Step(
        "evidence",
        "Evidence verification",
        "For each paragraph, its top candidate perspectives: supported?",
    ),
    Step(
        "counter_speech",
        "Counter-speech selection",
        "A crawled point and 3–5 counterpoints of its debate: which one answers it? Correct answers earn "
        "a bonus.",
    ),
    Step("topics", "Topics", "Workers tag each claim with topics from the fixed list."),
    Step(
        "vast",
        "VAST topic + stance",
        "Workers list a comment's topics, then give its stance on a claim's topic or correct the topic.",
    ),
    Step(
        "aggregate",
        "Aggregate",
        "Agreement and label models over every job of the run; results written back.",
    ),
    Step(
        "adjudicate",
        "Adjudicate",
        "An expert adjudicates a random sample; similar claim pairs are listed.",
    ),
    Step("split", "Split", "Train/dev/test 60/15/25 with claims sharing a topic kept together."),
    Step("release", "Release", "A versioned, verified release with manifest and datasheet."),
)
STEP_NAMES = tuple(step.name for step in STEPS)

# Every number is a default a user can change per run (docs/design/construction.md: defaults, not constants).
DEFAULTS: dict[str, Any] = {
    "market": "simulated",
    "crowd": {"size": 12, "spammer_share": 0.2, "seed": 0},
    # The stance job's redundancy: {} fixed (the task type's workers_per_item), or adaptive:
    # {"redundancy": "adaptive", "min_workers": 3, "max_workers": 4, "stop_posterior": 0.95}
    "stance_redundancy": {},
    # A machine beside the crowd in the stance job: {} none, or a local machine trained on the corpus's
    # decided stances of the claims of `train_splits`, with the job's machine plan:
    # {"annotator": "local-stance", "target_error": 0.1, "confidence": 0.95, "calibration_items": 150,
    #  "train_splits": ["train"]}
    "stance_machine": {},
    "crawl": {"site": "idebate", "start_urls": [], "limit": None, "archive": "", "serve_fixtures": False},
    "claims": [],  # cIds to work on; filled by the crawl step when empty
    "web_sentences": 10,
    "web_source_file": "",  # a JSON Lines file of web pages; default: settings.WEB_SEARCH_SOURCE
    "evidence_candidates": 8,
    "counter_speech_questions": 12,  # at most this many counter-speech questions per run
    "hints": 15,
    "vast_claims": 5,  # the VAST step's claims (kept perspectives and evidence as comments)
    "similar_claim_pairs": 350,
    "adjudication_sample": 40,
    "split_seed": 0,
    "resplit": False,  # True: split every claim afresh; False: claims with a split keep it
    "version": "",
}


class PipelineDefinitionError(ValueError):
    """An unknown step or parameter."""


def step(name: str) -> Step:
    for candidate in STEPS:
        if candidate.name == name:
            return candidate
    raise PipelineDefinitionError(f"unknown step {name!r}; steps: {', '.join(STEP_NAMES)}")


def merged_params(overrides: dict[str, Any] | None) -> dict[str, Any]:
    """DEFAULTS with `overrides` applied (one level deep for dict values); unknown keys refused."""
    params = {key: (dict(value) if isinstance(value, dict) else value) for key, value in DEFAULTS.items()}
    for key, value in (overrides or {}).items():
        if key not in DEFAULTS:
            raise PipelineDefinitionError(f"unknown pipeline parameter {key!r}; known: {', '.join(DEFAULTS)}")
        params[key] = {**params[key], **value} if isinstance(params[key], dict) else value
    _check_start_urls(params["crawl"])
    return params


def _check_start_urls(crawl: dict[str, Any]) -> None:
    """A crawl's start URLs are refused here, with the reason, before a run holds them."""
    # Imported here: crawler.services loads the page parsers, and the models import this module.
    from crawler.services import CrawlRequestError, check_start_urls

    urls = crawl.get("start_urls") or []
    try:
        check_start_urls(
            str(crawl.get("site", "")), [str(u) for u in (urls if isinstance(urls, list) else [urls])]
        )
    except CrawlRequestError as error:
        raise PipelineDefinitionError(f"crawl.start_urls: {error}") from None
