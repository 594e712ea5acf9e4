"""Counter-speech selection (Orbach et al., ACL 2020, §4): given a supporting text and 3–5 candidate
opposing texts on the same motion, pick the one written in response to it, and say why.

Where the questions come from: the job's `questions` filter, a list of
``{"key", "motion", "point", "candidates": [3–5 texts], "answer": index of the true one}`` (and an
optional claim ``cid``). Whoever can read the texts builds it: the pipeline step builds it from
crawled idebate points and their counterpoints (pipeline.candidate_jobs.counter_speech_questions).
This is simpler than carrying counterpoints into the corpus: annotation may not import crawler,
and a corpus field would need a migration and a second copy of text that no release publishes;
the filters need neither, and they keep in the job exactly what its workers were shown.

Candidates are shown in an order shuffled with the job's seed, so the true one's place gives nothing
away; they are labelled A–E and the known answer is the true one's letter. Each correct answer earns
a bonus that doubles its pay (annotation.work.accuracy.bonus_correct_answers, through the ledger).
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from django import forms

from annotation.simulation import WorkerModel
from annotation.simulation import answer as simulated_choice
from annotation.task_types.base import Answer, Defaults, ItemSpec, QuizQuestion, TaskType, TaskTypeError
from annotation.task_types.builtin_rules import COUNTER_SPEECH_LETTERS, COUNTER_SPEECH_RULE
from corpus.models import Claim

if TYPE_CHECKING:
    from annotation.models import Item

LABELS = tuple((letter, f"Speech {letter}") for letter in COUNTER_SPEECH_LETTERS)
MIN_CANDIDATES, MAX_CANDIDATES = 3, len(COUNTER_SPEECH_LETTERS)
MAX_TEXT = 20_000
MAX_KEY = 200

# The paper's reason categories (§4, "Reasons analysis"), in its words where it gives them.
QUOTES, MENTION, COMPREHENSIVE, ORDER = "quotes", "mention", "comprehensive", "order"
SIMILAR, MAIN_ISSUE, ELIMINATION, GUESS, OTHER = "similar", "main_issue", "elimination", "guess", "other"
REASONS = (
    (QUOTES, "The true counter speech quotes a phrase from the supporting speech"),
    (MENTION, "It mentions a specific case or argument from the supporting speech"),
    (
        COMPREHENSIVE,
        "It is more comprehensive and addresses more issues raised in the supporting speech than the "
        "other candidates",
    ),
    (ORDER, "It addresses those issues in the same order as they appear in the supporting speech"),
    (SIMILAR, "It discusses similar issues"),
    (MAIN_ISSUE, "It deals with the main issue raised in the supporting speech"),
    (
        ELIMINATION,
        "Elimination: the other candidates responded to issues or arguments which were not raised in "
        "the supporting speech",
    ),
    (GUESS, "Guess"),
    (OTHER, "Other (write the reason below)"),
)
REASON_VALUES = tuple(value for value, _ in REASONS)
SUBSTANTIVE_REASONS = (QUOTES, MENTION, COMPREHENSIVE, ORDER, SIMILAR, MAIN_ISSUE, ELIMINATION)

QUIZ = (
    QuizQuestion(
        key="q1",
        context=(
            ("Motion", "This house would ban homework in primary schools."),
            (
                "Supporting text",
                "Young children need time to play. Homework takes that time away and, as the Smith "
                "report showed, brings no gain in test scores before the age of eleven.",
            ),
            (
                "Speech A",
                "Homework teaches discipline, and parents value it as a window into what their "
                "children learn.",
            ),
            (
                "Speech B",
                "The Smith report measured test scores only; play matters, but homework also builds habits "
                "that pay off later, which no test at eleven can show.",
            ),
            ("Speech C", "Schools, not governments, should decide on homework, as they know their pupils."),
        ),
        question="Which opposing text was written in response to the supporting text?",
        choices=LABELS[:3],
        answer="B",
        explanation="Speech B answers the supporting text's own evidence, the Smith report, point by point.",
    ),
)


class CounterSpeechTaskType(TaskType):
    slug = "counter_speech"
    name = "Counter-speech selection"
    summary = "Which opposing text was written in response to the supporting text? Pick one, say why."
    labels = LABELS
    # The paper paid $2.50 a question: four questions a HIT.
    defaults = Defaults(groups_per_hit=4, workers_per_item=3, reward=Decimal("10.00"))
    quiz = QUIZ
    aggregation = COUNTER_SPEECH_RULE
    bonus_per_correct_answer = True  # the paper's bonus, doubling the pay of each correct answer

    def select_items(self, filters: Mapping[str, Any], params: Mapping[str, Any]) -> Iterator[ItemSpec]:
        questions = checked_questions(filters)
        claims = dict(
            Claim.objects.filter(cid__in=[q["cid"] for q in questions if "cid" in q]).values_list("cid", "pk")
        )
        seed = int(params.get("seed", 0))
        for question in questions:
            order = list(range(len(question["candidates"])))
            random.Random(f"{seed}-{question['key']}").shuffle(order)
            candidates = [
                {"label": letter, "text": question["candidates"][index]}
                for letter, index in zip(COUNTER_SPEECH_LETTERS, order, strict=False)
            ]
            yield ItemSpec(
                key=question["key"],
                group=question["key"],
                payload={"motion": question["motion"], "point": question["point"], "candidates": candidates},
                known_answer=COUNTER_SPEECH_LETTERS[order.index(question["answer"])],
                claim_id=claims.get(question["cid"]) if "cid" in question else None,
            )

    def fields(self, item: Item) -> dict[str, forms.Field]:
        letters = [candidate["label"] for candidate in item.payload["candidates"]]
        return {
            "": forms.ChoiceField(
                choices=[(letter, f"Speech {letter}") for letter in letters],
                widget=forms.RadioSelect,
                required=True,
            ),
            "reasons": forms.MultipleChoiceField(
                choices=REASONS, widget=forms.CheckboxSelectMultiple, required=True
            ),
            "other": forms.CharField(
                max_length=1000, required=False, widget=forms.Textarea(attrs={"rows": 2})
            ),
        }

    def clean_item(self, item: Item, cleaned: Mapping[str, Any]) -> dict[str, str]:
        """ "Other" asks for the reason in the worker's own words."""
        if OTHER in (cleaned.get("reasons") or []) and not str(cleaned.get("other", "")).strip():
            return {"other": "You chose Other: write your reason in your own words."}
        return {}

    def answer(self, item: Item, cleaned: Mapping[str, Any]) -> Answer:
        reasons = [value for value in REASON_VALUES if value in cleaned["reasons"]]
        return Answer(
            label=str(cleaned[""]), value={"reasons": reasons, "other": str(cleaned.get("other", "")).strip()}
        )

    def simulate(self, item: Item, worker: WorkerModel, rng: random.Random) -> Answer:
        """The one-coin worker's pick among the item's letters; a right pick names one or two of the
        paper's substantive reasons, a wrong one mostly admits a guess."""
        if item.known_answer is None:
            raise TaskTypeError(f"item {item.key} has no known answer for a simulated worker to start from")
        letters = [candidate["label"] for candidate in item.payload["candidates"]]
        chosen = simulated_choice(worker, str(item.known_answer), letters, rng)
        if chosen == item.known_answer or rng.random() < 0.3:
            reasons = sorted(rng.sample(SUBSTANTIVE_REASONS, k=rng.randint(1, 2)), key=REASON_VALUES.index)
        else:
            reasons = [GUESS]
        return Answer(label=chosen, value={"reasons": reasons, "other": ""})


def checked_questions(filters: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The `questions` filter, every field checked: a job's filters come from people and forms."""
    unknown = set(filters) - {"questions", "gold"}
    if unknown:
        raise TaskTypeError(f"unknown filter(s) {sorted(unknown)}; known: ['gold', 'questions']")
    questions = filters.get("questions")
    if not isinstance(questions, list):
        raise TaskTypeError("counter_speech needs a `questions` filter: a list of questions")
    checked = [_checked_question(number, question) for number, question in enumerate(questions)]
    keys = [question["key"] for question in checked]
    if len(set(keys)) != len(keys):
        raise TaskTypeError("two counter_speech questions share a key")
    return checked


def _text(where: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_TEXT:
        raise TaskTypeError(f"{where} must be a non-empty text of at most {MAX_TEXT} characters")
    return value.strip()


def _checked_question(number: int, question: Any) -> dict[str, Any]:
    where = f"question {number}"
    if not isinstance(question, Mapping):
        raise TaskTypeError(f"{where} must be an object")
    key = _text(f"{where}: key", question.get("key"))
    if len(key) > MAX_KEY:
        raise TaskTypeError(f"{where}: key must be at most {MAX_KEY} characters")
    candidates = question.get("candidates")
    if not isinstance(candidates, list) or not MIN_CANDIDATES <= len(candidates) <= MAX_CANDIDATES:
        raise TaskTypeError(f"{where}: candidates must be {MIN_CANDIDATES} to {MAX_CANDIDATES} texts")
    answer = question.get("answer")
    if isinstance(answer, bool) or not isinstance(answer, int) or not 0 <= answer < len(candidates):
        raise TaskTypeError(f"{where}: answer must be the index of the true candidate")
    checked: dict[str, Any] = {
        "key": key,
        "motion": _text(f"{where}: motion", question.get("motion")),
        "point": _text(f"{where}: point", question.get("point")),
        "candidates": [_text(f"{where}: candidate {n}", text) for n, text in enumerate(candidates)],
        "answer": answer,
    }
    cid = question.get("cid")
    if cid is not None:
        if isinstance(cid, bool) or not isinstance(cid, int):
            raise TaskTypeError(f"{where}: cid must be a claim id")
        checked["cid"] = cid
    return checked


def doubling_bonus_cap(questions: int, params: Mapping[str, Any]) -> Decimal:
    """The bonus cap that lets every answer of a job of `questions` items be bonused once: its rewards."""
    hits = -(-questions // int(params["groups_per_hit"]))
    return Decimal(str(params["reward"])) * hits * int(params["workers_per_item"])
