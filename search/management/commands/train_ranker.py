"""`manage.py train_ranker [--epochs N] [--seed S]`: fine-tune the candidate ranker on train claims."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from search.dense import DenseUnavailableError
from search.services import SearchConfigError, train_ranker, tuned_model_dir


class Command(BaseCommand):
    help = (
        "Fine-tune the packaged MiniLM on the train-split claims and their released perspectives "
        "(needs requirements-dense.txt; minutes on a CPU). SEARCH_RANKING=best then ranks with it."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--epochs", type=int, default=1)
        parser.add_argument("--seed", type=int, default=0)

    def handle(self, *args: Any, **options: Any) -> None:
        if options["epochs"] < 1:
            raise CommandError("--epochs must be at least 1")
        try:
            training = train_ranker(epochs=options["epochs"], seed=options["seed"])
        except (DenseUnavailableError, SearchConfigError) as error:
            raise CommandError(str(error)) from None
        self.stdout.write(
            f"trained on {training.claims} train claims ({training.pairs} pairs, {training.epochs} "
            f"epoch(s)), saved in {tuned_model_dir()}"
        )
