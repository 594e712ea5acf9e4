"""An imported MTurk layout template as a task type: one item per row of its batch CSV.

A job's one filter, `mturk_batch`, names the `annotation.models.MTurkBatch` that holds the rows and
names the template; each item carries its row in `payload["row"]`. The form's fields are the
template's own (`mturk_layout.parse_layout`), posted under their own names (one row per HIT), and
the page shows the template filled with the row (`mturk_layout.render_layout`), sanitised unless the
template is trusted. Answers are not aggregated: they come out as MTurk's batch results
(`annotation.work.mturk_batches.batch_results`).
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from django import forms

from annotation.models import MTurkBatch
from annotation.simulation import WorkerModel
from annotation.task_types.base import Answer, Defaults, ItemSpec, TaskType, TaskTypeError
from annotation.task_types.mturk_layout import CHOICE, FLAG, MULTI, LayoutField, parse_layout, render_layout

if TYPE_CHECKING:
    from annotation.models import Item, Job, MTurkTemplate

# A page showing an untrusted template runs no script at all: nh3 has removed the template's, and
# the platform's keyboard helper is left out of these pages.
UNTRUSTED_POLICY = "script-src 'none'; object-src 'none'; base-uri 'none'"
SIMULATED_TEXT = "(simulated answer)"


def batch_of(job: Job) -> MTurkBatch:
    """The batch a template job was made from (its `mturk_batch` filter), with its template."""
    batch = MTurkBatch.objects.select_related("template").filter(pk=batch_pk(job.filters)).first()
    if batch is None:
        raise TaskTypeError(f"job {job.pk} names no stored MTurk batch")
    return batch


def batch_pk(filters: Mapping[str, Any]) -> int:
    unknown = set(filters) - {"mturk_batch"}
    raw = filters.get("mturk_batch")
    if unknown or isinstance(raw, bool) or not isinstance(raw, int | str) or not str(raw).isdigit():
        raise TaskTypeError("an MTurk template job is chosen by one filter, mturk_batch (a batch's id)")
    return int(raw)


def template_of(job: Job) -> MTurkTemplate:
    return batch_of(job).template


def layout_fields(job: Job) -> tuple[LayoutField, ...]:
    return parse_layout(template_of(job).source).fields


def form_field(layout_field: LayoutField) -> forms.Field:
    choices = [(value, value) for value in layout_field.values]
    required = layout_field.required
    if layout_field.kind == CHOICE:
        return forms.ChoiceField(choices=choices, required=required)
    if layout_field.kind == MULTI:
        return forms.MultipleChoiceField(choices=choices, required=required)
    if layout_field.kind == FLAG:
        return forms.BooleanField(required=required)
    return forms.CharField(required=required, max_length=10_000, strip=False)


class MTurkTemplateTaskType(TaskType):
    slug = "mturk_template"
    name = "MTurk template"
    summary = "An imported MTurk layout template; each row of its batch CSV is one item."
    defaults = Defaults(groups_per_hit=1, workers_per_item=3, reward=Decimal("0.10"))
    bare_field_names = True
    items_shown_alike = False  # the researcher's layout, sanitised until it is trusted

    def select_items(self, filters: Mapping[str, Any], params: Mapping[str, Any]) -> Iterator[ItemSpec]:
        if int(params["groups_per_hit"]) != 1:
            raise TaskTypeError("an MTurk template job shows one CSV row per HIT (groups_per_hit 1)")
        batch = MTurkBatch.objects.filter(pk=batch_pk(filters)).first()
        if batch is None:
            raise TaskTypeError(f"no MTurk batch {filters['mturk_batch']}")
        for number, row in enumerate(batch.rows, start=1):
            yield ItemSpec(key=f"row-{number}", group=f"row-{number}", payload={"row": row, "number": number})

    def fields(self, item: Item) -> dict[str, forms.Field]:
        return {each.name: form_field(each) for each in layout_fields(item.job)}

    def answer(self, item: Item, cleaned: Mapping[str, Any]) -> Answer:
        """`value` holds every field by name; `label` the choice when the template asks for one only."""
        value = {
            name: list(given) if isinstance(given, list | tuple) else given for name, given in cleaned.items()
        }
        choices = [each for each in layout_fields(item.job) if each.kind == CHOICE]
        label = str(value.get(choices[0].name) or "") if len(choices) == 1 else ""
        return Answer(label=label, value=value)

    def is_correct(self, item: Item, answer: Answer) -> bool:
        return False  # a batch row has no known answer to grade against

    def simulate(self, item: Item, worker: WorkerModel, rng: random.Random) -> Answer:
        """A modelled worker's answer: a random option of each choice, a fixed text marked simulated."""
        value: dict[str, Any] = {}
        for each in layout_fields(item.job):
            if each.kind == CHOICE:
                value[each.name] = rng.choice(each.values)
            elif each.kind == MULTI:
                value[each.name] = sorted(v for v in each.values if rng.random() < 0.5) or [each.values[0]]
            elif each.kind == FLAG:
                value[each.name] = each.required or rng.random() < 0.5
            else:
                value[each.name] = SIMULATED_TEXT
        return self.answer(item, value)

    def render(self, item: Item, names: Mapping[str, str]) -> str:
        """The template filled with the item's row, its controls named as the page's form names them."""
        template = template_of(item.job)
        return render_layout(template.source, item.payload.get("row", {}), names, trusted=template.trusted)

    def content_security_policy(self, job: Any) -> str | None:
        return None if template_of(job).trusted else UNTRUSTED_POLICY
