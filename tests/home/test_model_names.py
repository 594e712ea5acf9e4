"""Every model's plural name is English, as the admin shows it ("worker quality", not "worker qualitys")."""

from __future__ import annotations

import re

from django.apps import apps

# Django's default plural adds an "s": wrong after a consonant + y, or after s, x, ch, sh.
NAIVE_PLURAL = re.compile(r"(?:[^aeiou]ys|ss|xs|chs|shs)$")


def test_no_model_has_a_naive_plural_name() -> None:
    models = apps.get_models()
    wrong = [
        model._meta.label for model in models if NAIVE_PLURAL.search(str(model._meta.verbose_name_plural))
    ]
    assert len(models) > 20 and wrong == []
