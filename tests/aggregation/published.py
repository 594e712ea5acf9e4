"""Published worked examples, transcribed as data.

* Fleiss (1971), Table 1: 30 psychiatric patients, 6 diagnoses each, 5 categories (depression,
  personality disorder, schizophrenia, neurosis, other). Fleiss reports κ = .430.
* The 10-subject, 14-rater, 5-category table used as the worked example of Fleiss' κ in standard
  references (e.g. Wikipedia, "Fleiss' kappa"): P̄ = 0.378, P̄e = 0.213, κ = 0.210.
* Dawid & Skene (1979), Table 1: 45 patients rated by 5 anaesthetists on a 4-point scale; observer 1
  rated every patient three times, the others once (315 ratings).
"""

from __future__ import annotations

FLEISS_1971 = [
    [0, 0, 0, 6, 0], [0, 3, 0, 0, 3], [0, 1, 4, 0, 1], [0, 0, 0, 0, 6], [0, 3, 0, 3, 0],
    [2, 0, 4, 0, 0], [0, 0, 4, 0, 2], [2, 0, 3, 1, 0], [2, 0, 0, 4, 0], [0, 0, 0, 0, 6],
    [1, 0, 0, 5, 0], [1, 1, 0, 4, 0], [0, 3, 3, 0, 0], [1, 0, 0, 5, 0], [0, 2, 0, 3, 1],
    [0, 0, 5, 0, 1], [3, 0, 0, 1, 2], [5, 1, 0, 0, 0], [0, 2, 0, 4, 0], [1, 0, 2, 0, 3],
    [0, 0, 0, 0, 6], [0, 1, 0, 5, 0], [0, 2, 0, 1, 3], [2, 0, 0, 4, 0], [1, 0, 0, 4, 1],
    [0, 5, 0, 1, 0], [4, 0, 0, 0, 2], [0, 2, 0, 4, 0], [1, 0, 5, 0, 0], [0, 0, 0, 0, 6],
]  # fmt: skip

FLEISS_TEXTBOOK_10 = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
]

# Patient → the ratings of observers 1 (three times), 2, 3, 4, 5, as one string of digits.
DAWID_SKENE_1979 = {
    1: "1111111", 2: "3334334", 3: "1122122", 4: "2223121", 5: "2223222",
    6: "2223322", 7: "1222111", 8: "3333433", 9: "2222223", 10: "2322223",
    11: "4444444", 12: "2223343", 13: "1111111", 14: "2223212", 15: "1211111",
    16: "1112111", 17: "1111111", 18: "1111111", 19: "2222221", 20: "2221322",
    21: "2222222", 22: "2222221", 23: "2223222", 24: "2212222", 25: "1111111",
    26: "1111111", 27: "2322222", 28: "1111111", 29: "1111111", 30: "1121121",
    31: "1111111", 32: "3333233", 33: "1111111", 34: "2222222", 35: "2223232",
    36: "4334343", 37: "2212232", 38: "2323233", 39: "3333342", 40: "1111111",
    41: "1111111", 42: "1212111", 43: "2322222", 44: "1211111", 45: "2222222",
}  # fmt: skip

DAWID_SKENE_OBSERVERS = (1, 1, 1, 2, 3, 4, 5)


def dawid_skene_rows() -> list[tuple[int, int, str]]:
    """(patient, observer, rating) rows, ratings as the strings "1".."4"."""
    return [
        (patient, observer, rating)
        for patient, ratings in DAWID_SKENE_1979.items()
        for observer, rating in zip(DAWID_SKENE_OBSERVERS, ratings, strict=True)
    ]
