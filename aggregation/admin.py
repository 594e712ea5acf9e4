"""Admin: the adjudication queue (contested and sampled items, every response with its worker's
reliability, the current aggregate, the expert's final label), worker quality with soft blocks, runs.

The aggregation services load NumPy, so each page and action imports them when it runs: Django
imports this module whenever it starts, for every management command."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from aggregation.models import Adjudication, AggregationRun, ItemOutcome, WorkerQuality
from aggregation.wording import rule_in_words
from annotation.models import Item, task_type_name
from annotation.staff.columns import TaskTypeFilter
from config.columns import PlainFields, figure_column, in_words, label_column, readable_fields, words_column
from config.wording import count


class QueueFilter(admin.SimpleListFilter):
    title = "queue"
    parameter_name = "queue"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("waiting", "waiting for an expert"), ("adjudicated", "adjudicated")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        decided = _adjudicated()
        if self.value() == "waiting":
            return queryset.filter(Q(contested=True) | Q(sampled=True)).exclude(decided)
        if self.value() == "adjudicated":
            return queryset.filter(decided)
        return queryset


def _adjudicated() -> Exists:
    """Whether an outcome has an expert's adjudication, as a column of its query."""
    return Exists(Adjudication.objects.filter(outcome=OuterRef("pk")))


class FinalLabelForm(forms.ModelForm):
    final_label = forms.ChoiceField(help_text="Recorded as adjudicated, with your name and the time.")
    note = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), required=False)

    class Meta:
        model = ItemOutcome
        fields: list[str] = []


@admin.register(ItemOutcome)
class AdjudicationQueueAdmin(admin.ModelAdmin):
    form = FinalLabelForm
    list_display = (
        "item_key",
        "texts",
        "job",
        "label_name",
        "fine_label_name",
        "agreement_figure",
        "reasons_text",
        "sampled",
        "decided",
    )
    label_name = label_column("label", "label")
    fine_label_name = label_column("fine_label", "answers' label")
    agreement_figure = figure_column("agreement", "agreement")
    list_filter = (QueueFilter, "contested", "sampled", "status", "job")
    # The item's texts are the corpus rows it is about; searching them finds an item by what it says.
    search_fields = ("item__key", "item__claim__text", "item__perspective__text", "item__evidence__text")
    list_select_related = ("item", "job")
    readonly_fields = ("fast_page", "item_shown", "aggregate", "responses_table", "history")
    fields = ("fast_page", "item_shown", "aggregate", "responses_table", "history", "final_label", "note")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_queryset(self, request: HttpRequest) -> QuerySet[ItemOutcome]:
        return super().get_queryset(request).annotate(adjudicated=_adjudicated())

    @admin.display(description="item")
    def item_key(self, obj: ItemOutcome) -> str:
        return obj.item.key

    @admin.display(description="texts")
    def texts(self, obj: ItemOutcome) -> str:
        return shortened(obj.item)

    @admin.display(description="")
    def fast_page(self, obj: ItemOutcome) -> SafeString:
        url = reverse("aggregation:adjudicate", args=[obj.job_id])
        return format_html('<a href="{}?outcome={}">Adjudicate this job one item at a time</a>', url, obj.pk)

    @admin.display(description="why contested")
    def reasons_text(self, obj: ItemOutcome) -> str:
        return in_words(obj.reasons)

    @admin.display(description="adjudicated", boolean=True, ordering="adjudicated")
    def decided(self, obj: ItemOutcome) -> bool:
        return bool(obj.adjudicated)  # type: ignore[attr-defined]  # annotated by get_queryset

    def get_form(self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any) -> Any:
        from aggregation.adjudication import choices, current_label  # NumPy: see the module docstring

        form = super().get_form(request, obj, change=change, **kwargs)
        if obj is not None:
            offered = choices(obj)
            now = current_label(obj)
            if offered.multiple:
                form.base_fields["final_label"] = forms.MultipleChoiceField(
                    choices=offered.labels,
                    widget=forms.CheckboxSelectMultiple,
                    required=False,
                    initial=[label for label in now.split(",") if label],
                    help_text="None: no label applies.",
                )
            else:
                field = form.base_fields["final_label"]
                assert isinstance(field, forms.ChoiceField)
                field.choices, field.initial = list(offered.labels), now
        return form

    def save_model(self, request: HttpRequest, obj: ItemOutcome, form: Any, change: bool) -> None:
        from aggregation.adjudication import AdjudicationError, adjudicate  # NumPy

        try:
            adjudicate(
                obj.pk, form.cleaned_data["final_label"], user=request.user, note=form.cleaned_data["note"]
            )
        except AdjudicationError as error:
            self.message_user(request, str(error), messages.ERROR)

    @admin.display(description="item")
    def item_shown(self, obj: ItemOutcome) -> SafeString:
        rows = format_html_join("", "<tr><th>{}</th><td>{}</td></tr>", sorted(obj.item.payload.items()))
        gold = (
            format_html("<p>Gold item; known answer {}</p>", obj.item.known_answer)
            if obj.item.is_gold
            else ""
        )
        return format_html("<table>{}</table>{}", rows, gold)

    @admin.display(description="current aggregate")
    def aggregate(self, obj: ItemOutcome) -> SafeString:
        from aggregation.adjudication import current_label  # NumPy
        from aggregation.declared import described_votes

        rho = "n/a" if obj.agreement is None else f"{obj.agreement:.3f}"
        return format_html(
            "majority <strong>{}</strong> (answers: {}), votes {}, ρ {}, {}; model says {} ({}); "
            "reference {}; contested: {}; now in the corpus: <strong>{}</strong>",
            obj.job.label_name(obj.label),
            obj.job.label_name(obj.fine_label),
            described_votes(obj.job.task_type, obj.counts),
            rho,
            obj.status,
            obj.job.label_name(obj.model_label) if obj.model_label else "-",
            f"{obj.model_confidence or 0.0:.0%}",
            obj.job.label_name(obj.reference_label) if obj.reference_label else "none",
            in_words(obj.reasons) if obj.reasons else "no",
            obj.job.label_name(current_label(obj)),
        )

    @admin.display(description="responses")
    def responses_table(self, obj: ItemOutcome) -> SafeString:
        from aggregation.adjudication import rated_responses  # NumPy

        rows = [
            (
                r.worker,
                obj.job.label_name(r.label),
                _share(r.reliability),
                _share(r.agreement),
                in_words(r.flags),
                "blocked" if r.blocked else "",
            )
            for r in rated_responses(obj)
        ]
        body = format_html_join(
            "", "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>", rows
        )
        head = format_html_join("", "<th>{}</th>", [(h,) for h in RESPONSE_COLUMNS])
        return format_html("<table><tr>{}</tr>{}</table>", head, body)

    @admin.display(description="adjudications")
    def history(self, obj: ItemOutcome) -> SafeString:
        rows = [
            (
                a.decided_at.strftime("%Y-%m-%d %H:%M"),
                str(a.decided_by),
                obj.job.label_name(a.old_label),
                obj.job.label_name(a.new_label),
                a.note,
            )
            for a in obj.adjudications.select_related("decided_by").order_by("decided_at")
        ]
        if not rows:
            return SafeString("none yet")
        return format_html_join("", "<p>{} {}: {} → {} {}</p>", rows)


RESPONSE_COLUMNS = ("worker", "label", "reliability", "agreement", "flags", "")


def _share(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


SHORT = 90  # characters of each text shown in a list


def shortened(item: Item) -> str:
    """The item's texts (claim, perspective, evidence, …) as one line, each cut to ``SHORT``."""
    texts = [value for value in item.payload.values() if isinstance(value, str) and value]
    return " / ".join(text if len(text) <= SHORT else text[: SHORT - 1] + "…" for text in texts)


@admin.register(WorkerQuality)
class WorkerQualityAdmin(PlainFields, admin.ModelAdmin):
    list_display = (
        "worker",
        "job",
        "responses",
        "agreement_figure",
        "reliability_figure",
        "gold",
        "flags_words",
        "blocked",
    )
    agreement_figure = figure_column("agreement", "agreement")
    reliability_figure = figure_column("reliability", "reliability")
    flags_words = words_column("flags", "flags")
    list_filter = ("flagged", "worker__blocked", "job")
    list_select_related = ("worker", "job")
    actions = ["soft_block_workers"]
    fields = readonly_fields = tuple(readable_fields(WorkerQuality))

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.display(description="gold")
    def gold(self, obj: WorkerQuality) -> str:
        return f"{obj.gold_correct}/{obj.gold_answered}" if obj.gold_answered else "-"

    @admin.display(description="blocked", boolean=True)
    def blocked(self, obj: WorkerQuality) -> bool:
        return obj.worker.blocked

    @admin.action(description="Soft-block the chosen workers from future jobs", permissions=["change"])
    def soft_block_workers(self, request: HttpRequest, queryset: QuerySet[WorkerQuality]) -> None:
        from aggregation.quality import request_soft_block  # NumPy

        queued = request_soft_block(queryset, by=request.user)
        self.message_user(request, f"Soft-block of {count(queued, 'worker')} queued.")


@admin.register(AggregationRun)
class AggregationRunAdmin(PlainFields, admin.ModelAdmin):
    list_display = (
        "pk",
        "job",
        "created",
        "trigger",
        "state",
        "rule_words",
        "kappa",
        "alpha",
        "kept",
        "rejected",
        "no_majority",
        "changed_items",
        "dashboard",
    )
    list_filter = ("state", "trigger", TaskTypeFilter)
    kappa = figure_column("fleiss_kappa", "Fleiss' κ")
    alpha = figure_column("krippendorff_alpha", "Krippendorff's α")
    fields = readonly_fields = tuple(
        {"rule": "rule_words", "task_type": "task_type_shown"}.get(name, name)
        for name in readable_fields(AggregationRun, codes=("label_model",))
    )
    actions = ["aggregate_again"]

    @admin.display(description="rule", ordering="rule")
    def rule_words(self, obj: AggregationRun) -> str:
        return rule_in_words(obj)

    @admin.display(description="task type", ordering="task_type")
    def task_type_shown(self, obj: AggregationRun) -> str:
        return task_type_name(obj.task_type)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.display(description="dashboard")
    def dashboard(self, obj: AggregationRun) -> SafeString:
        return format_html(
            '<a href="{}">job {}</a> · <a href="{}">adjudicate</a>',
            reverse("aggregation:dashboard", args=[obj.job_id]),
            obj.job_id,
            reverse("aggregation:adjudicate", args=[obj.job_id]),
        )

    @admin.action(description="Aggregate the chosen runs' jobs again (same policy)", permissions=["add"])
    def aggregate_again(self, request: HttpRequest, queryset: QuerySet[AggregationRun]) -> None:
        from aggregation.tasks import request_aggregation  # NumPy, through the aggregation services

        jobs = sorted(set(queryset.values_list("job_id", flat=True)))
        for job_id in jobs:
            request_aggregation(job_id, "manual")
        self.message_user(request, f"Aggregation requested for {count(len(jobs), 'job')}.")


@admin.register(Adjudication)
class AdjudicationAdmin(admin.ModelAdmin):
    list_display = (
        "outcome",
        "texts",
        "job",
        "crowd_label_name",
        "old_label_name",
        "new_label_name",
        "new_status",
        "sampled",
        "decided_by",
        "decided_at",
        "note",
    )
    crowd_label_name = label_column("crowd_label", "crowd's label")
    old_label_name = label_column("old_label", "label before")
    new_label_name = label_column("new_label", "expert's label")
    decided_label_name = label_column("decided_label", "decided label")
    list_filter = ("sampled", "new_status", "job")
    list_select_related = ("outcome__item", "outcome__job", "job", "decided_by")
    search_fields = (
        "outcome__item__key",
        "outcome__item__claim__text",
        "outcome__item__perspective__text",
        "outcome__item__evidence__text",
        "note",
    )
    # The labels by their names; the other fields as stored.
    fields = readonly_fields = tuple(
        f.name + "_name" if f.name in ("crowd_label", "old_label", "new_label", "decided_label") else f.name
        for f in Adjudication._meta.fields
    )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description="texts")
    def texts(self, obj: Adjudication) -> str:
        return shortened(obj.outcome.item)
