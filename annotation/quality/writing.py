"""How a free-text answer was written, and whether that looks like a person typing. Pure: no Django.

The task page records, for every free-text field and with a notice to the worker, the characters
typed and pasted, the pastes, the time from the page's opening to the first keystroke, the time spent
typing and how often the worker left the field or the page. Nothing of the text is sent anywhere to
be judged: the signals alone decide. An answer mostly pasted, typed faster than people type, or that
appeared without being typed is flagged with its reasons; a person then accepts it or not.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

# Below this many characters an answer is too short to say how it was written.
MIN_CHARS = 15
# A flagged paste: at least this share of the answer came from the clipboard (or a drop).
PASTED_SHARE = 0.5
# Sustained typing faster than this (characters a second) is not a person's: 150 words a minute,
# a very fast typist's pace, is about 12.5; the pace is measured over at least MIN_TYPED characters.
MAX_CHARS_PER_SECOND = 15.0
MIN_TYPED = 20
# Each signal is a count or a time in milliseconds; anything larger is not a page's honest record.
CEILING = 10**9


class WritingSignalsError(ValueError):
    """A record of writing that is not one the task page sends (a missing or impossible number)."""


@dataclass(frozen=True)
class WritingSignals:
    typed: int = 0  # characters inserted by typing
    pasted: int = 0  # characters inserted by pasting or dropping
    pastes: int = 0
    deleted: int = 0  # corrections: characters removed
    first_key_ms: int = -1  # from the page's opening to the field's first keystroke; -1: none
    typing_ms: int = 0  # from the field's first typed character to its last
    focus_changes: int = 0  # the field or the page left while writing in it

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> WritingSignals:
        """The signals as the page sends them; WritingSignalsError on anything else."""
        if not isinstance(values, Mapping):
            raise WritingSignalsError("a writing record is an object of numbers")
        read = {}
        for spec in fields(cls):
            value = values.get(spec.name, spec.default)
            if isinstance(value, bool) or not isinstance(value, int) or not -1 <= value <= CEILING:
                raise WritingSignalsError(f"{spec.name} must be a whole number from -1 to {CEILING}")
            read[spec.name] = value
        return cls(**read)

    def as_dict(self) -> dict[str, int]:
        return {spec.name: getattr(self, spec.name) for spec in fields(self)}

    @property
    def chars_per_second(self) -> float | None:
        if self.typed < MIN_TYPED or self.typing_ms <= 0:
            return None
        return self.typed / (self.typing_ms / 1000)


def judge(signals: WritingSignals, text: str) -> list[str]:
    """Why this answer does not look typed by a person; empty when it does."""
    length = len(text.strip())
    if length < MIN_CHARS:
        return []
    reasons = []
    if signals.pasted >= PASTED_SHARE * length:
        reasons.append(
            f"pasted: {signals.pasted} of its {length} characters came in {signals.pastes} paste(s)"
        )
    pace = signals.chars_per_second
    if pace is not None and pace > MAX_CHARS_PER_SECOND:
        reasons.append(f"typed at {pace:.0f} characters a second, faster than people type")
    if signals.typed + signals.pasted < PASTED_SHARE * length:
        reasons.append(
            f"{length} characters appeared with only {signals.typed + signals.pasted} typed or pasted"
        )
    return reasons
