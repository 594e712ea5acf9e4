"""Forms built from a task type: one field (or a few) per item of a HIT, and the quiz."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django import forms

from annotation.models import Item
from annotation.task_types.base import Answer, QuizQuestion, TaskType
from annotation.web.widgets import RadioChoices, fast_radios


def field_name(item: Item, suffix: str) -> str:
    return f"item-{item.pk}" + (f"-{suffix}" if suffix else "")


class HitForm(forms.Form):
    """Every item of a HIT; `answers()` gives one `Answer` per item once valid."""

    def __init__(self, task_type: TaskType, items: Sequence[Item], *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.task_type = task_type
        self.items = list(items)
        self.names: dict[int, dict[str, str]] = {}
        bare = task_type.bare_field_names and len(self.items) == 1
        for item in self.items:
            self.names[item.pk] = {}
            for suffix, field in task_type.fields(item).items():
                name = suffix if bare and suffix else field_name(item, suffix)
                self.fields[name] = fast_radios(field)
                self.names[item.pk][suffix] = name

    def clean(self) -> dict[str, Any] | None:
        cleaned = super().clean()
        for item in self.items:
            names = self.names[item.pk]
            if any(name not in self.cleaned_data for name in names.values()):
                continue  # a field of the item is already refused
            values = {suffix: self.cleaned_data[name] for suffix, name in names.items()}
            for suffix, message in self.task_type.clean_item(item, values).items():
                self.add_error(names[suffix], message)
        return cleaned

    def rows(self) -> list[dict[str, Any]]:
        """Per item: the item and its bound fields, for the task type's template."""
        return [
            {
                "item": item,
                "fields": [self[name] for name in self.names[item.pk].values()],
                "names": self.names[item.pk],
            }
            for item in self.items
        ]

    def answers(self) -> dict[int, Answer]:
        return {
            item.pk: self.task_type.answer(
                item, {suffix: self.cleaned_data[name] for suffix, name in self.names[item.pk].items()}
            )
            for item in self.items
        }


class QuizForm(forms.Form):
    def __init__(self, questions: Sequence[QuizQuestion], *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.questions = list(questions)
        for question in self.questions:
            self.fields[question.key] = forms.ChoiceField(
                label=question.question, choices=question.choices, widget=RadioChoices
            )

    def rows(self) -> list[dict[str, Any]]:
        return [{"question": q, "field": self[q.key]} for q in self.questions]

    def answers(self) -> Mapping[str, str]:
        return {q.key: str(self.cleaned_data[q.key]) for q in self.questions}
