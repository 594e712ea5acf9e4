"""The fake MTurk's qualifications and its workers: who may find, preview and accept which HIT.

A HIT type carries its QualificationRequirements, and MTurk holds every worker to them ("a Worker
is only permitted to perform an action when they have met all QualificationRequirements guarding
the action"; QualificationRequirement, MTurk API reference). `ActionsGuarded` says which: "Accept"
(the worker may still find and preview), "PreviewAndAccept" (may only find it),
"DiscoverPreviewAndAccept" (may not even find it). A requirement is checked as documented before
the HIT type is made: `Exists` and `DoesNotExist` take no value, `In` and `NotIn` take one or more,
every other comparator exactly one; a requirement names a system qualification or one of the
requester's own; `RequiredToPreview` is the deprecated form of `ActionsGuarded`, not both.

A qualification type's name "must be unique across all of your Qualification types"
(CreateQualificationType): a second type of the same name is refused. Only the requester's own
types are granted or taken back (AssociateQualificationWithWorker,
DisassociateQualificationFromWorker); a worker holds a type at most once.
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
from collections import Counter
from typing import Any

# System qualification types (QualificationRequirement, MTurk API reference): locale, number of
# HITs approved, approval rate; the masters types are not used by the platform.
LOCALE = "00000000000000000071"
APPROVED_HITS = "00000000000000000040"
APPROVAL_RATE = "000000000000000000L0"
SYSTEM_TYPES = frozenset({LOCALE, APPROVED_HITS, APPROVAL_RATE})
NO_VALUE = frozenset({"Exists", "DoesNotExist"})
SET_VALUES = frozenset({"In", "NotIn"})
ACTIONS = ("Discover", "Preview", "Accept")
# What each ActionsGuarded value keeps from a worker who does not meet the requirement.
GUARDS = {
    "Accept": frozenset({"Accept"}),
    "PreviewAndAccept": frozenset({"Preview", "Accept"}),
    "DiscoverPreviewAndAccept": frozenset(ACTIONS),
}
DESCRIPTION_LIMIT = 2000  # CreateQualificationType: Description "less than or equal to 2,000 characters"


class Refused(Exception):
    """MTurk refuses the request: a RequestError (HTTP 400) saying why."""


class NotAllowedError(Exception):
    """A worker's action at MTurk that the HIT's qualification requirements keep from them."""


def market_id(prefix: str, n: int) -> str:
    return f"{prefix}{n:0{30 - len(prefix)}d}"


def page(key: str, items: list[dict[str, Any]], p: dict[str, Any]) -> dict[str, Any]:
    start, size = int(p.get("NextToken") or 0), int(p.get("MaxResults", 10))
    found = items[start : start + size]
    body: dict[str, Any] = {key: found, "NumResults": len(found)}
    if start + size < len(items):
        body["NextToken"] = str(start + size)
    return body


class WorkersAtMTurk:
    """Qualification types, HIT types with their requirements, and workers held to them (a mixin of
    FakeMTurk: it gives `ids`, `hits`, `effects` and `now`)."""

    ids: itertools.count[int]
    hits: dict[str, dict[str, Any]]
    effects: Counter[str]

    def now(self) -> dt.datetime:
        raise NotImplementedError

    def _start_workers(self) -> None:
        self.qualification_types: dict[str, dict[str, Any]] = {}
        self.hit_types: dict[str, dict[str, Any]] = {}
        self.qualified: dict[tuple[str, str], int] = {}  # (qualification type, worker) → value
        # A worker's system qualifications (`worker`); one not described meets the platform's defaults.
        self.profiles: dict[str, dict[str, Any]] = {}
        self.taken: dict[tuple[str, str], str] = {}  # (HIT, worker) → the assignment they accepted

    # -- what a worker does at MTurk ----------------------------------------------------------

    def worker(self, worker_id: str, *, country: str = "US", approved: int = 5000, rate: int = 99) -> None:
        """Describe a worker's system qualifications: locale, HITs approved, approval rate."""
        self.profiles[worker_id] = {LOCALE: country, APPROVED_HITS: approved, APPROVAL_RATE: rate}

    def made_earlier(self, type_id: str, name: str) -> None:
        """A qualification type the requester made before (one configured by id, as the soft block is)."""
        self.qualification_types[type_id] = {
            "QualificationTypeId": type_id,
            "Name": name,
            "Description": name,
            "QualificationTypeStatus": "Active",
        }

    def allowed(self, worker_id: str, hit_id: str, action: str) -> bool:
        """Whether the worker may find ("Discover"), preview or accept the HIT."""
        requirements = self.hit_types[self.hits[hit_id]["HITTypeId"]]["QualificationRequirements"]
        return all(self._meets(worker_id, req) for req in requirements if action in GUARDS[_guarded(req)])

    def accept(self, hit_id: str, worker_id: str) -> str:
        """The worker accepts an assignment of the HIT: its id, or NotAllowedError saying why not."""
        hit = self.hits[hit_id]
        if not self.allowed(worker_id, hit_id, "Accept"):
            raise NotAllowedError(f"worker {worker_id} does not meet the qualification requirements")
        if hit["HITStatus"] != "Assignable" or hit["Expiration"] <= self.now():
            raise NotAllowedError(f"HIT {hit_id} is not offered")
        if (hit_id, worker_id) in self.taken:
            raise NotAllowedError(f"worker {worker_id} already took HIT {hit_id}")
        if sum(1 for taken, _ in self.taken if taken == hit_id) >= hit["MaxAssignments"]:
            raise NotAllowedError(f"HIT {hit_id} has no assignment left")
        self.taken[hit_id, worker_id] = market_id("ASG", next(self.ids))
        return self.taken[hit_id, worker_id]

    def _meets(self, worker_id: str, req: dict[str, Any]) -> bool:
        type_id, comparator = req["QualificationTypeId"], req["Comparator"]
        if type_id in SYSTEM_TYPES:
            held: Any = self.profiles.get(worker_id, _DEFAULT_PROFILE)[type_id]
        else:
            held = self.qualified.get((type_id, worker_id))
        if comparator in NO_VALUE:
            return (held is not None) == (comparator == "Exists")
        if held is None:
            return False
        wanted = [v["Country"] for v in req.get("LocaleValues", [])] or req.get("IntegerValues", [])
        return _compare(comparator, held, wanted)

    # -- operations, named as in the API ------------------------------------------------------

    def _CreateHITType(self, p: dict[str, Any]) -> dict[str, Any]:
        requirements = p.get("QualificationRequirements", [])
        for req in requirements:
            self._check_requirement(req)
        # MTurk gives a HIT type identical to an earlier one that one's id.
        key = json.dumps(p, sort_keys=True, default=str)
        for type_id, known in self.hit_types.items():
            if known["key"] == key:
                return {"HITTypeId": type_id}
        type_id = market_id("TYPE", len(self.hit_types) + 1)
        self.hit_types[type_id] = {"key": key, "QualificationRequirements": requirements}
        return {"HITTypeId": type_id}

    def _check_requirement(self, req: dict[str, Any]) -> None:
        type_id, comparator = req["QualificationTypeId"], req["Comparator"]
        if type_id not in SYSTEM_TYPES and type_id not in self.qualification_types:
            raise Refused(f"QualificationType {type_id} does not exist.")
        values = len(req.get("IntegerValues", [])) + len(req.get("LocaleValues", []))
        if comparator in NO_VALUE and values:
            raise Refused(f"The {comparator} comparator takes no IntegerValues or LocaleValues.")
        if comparator in SET_VALUES and not values:
            raise Refused(f"The {comparator} comparator needs at least one value.")
        if comparator not in NO_VALUE | SET_VALUES and values != 1:
            raise Refused(f"The {comparator} comparator takes exactly one value.")
        if "ActionsGuarded" in req and "RequiredToPreview" in req:
            raise Refused("Use ActionsGuarded or the deprecated RequiredToPreview, not both.")

    def _CreateQualificationType(self, p: dict[str, Any]) -> dict[str, Any]:
        if any(known["Name"] == p["Name"] for known in self.qualification_types.values()):
            raise Refused("You have already created a QualificationType with this name.")
        if len(p["Description"]) > DESCRIPTION_LIMIT:
            raise Refused(f"Description must be at most {DESCRIPTION_LIMIT} characters.")
        type_id = market_id("QUAL", next(self.ids))
        self.qualification_types[type_id] = {
            "QualificationTypeId": type_id,
            "CreationTime": self.now(),
            "Name": p["Name"],
            "Description": p["Description"],
            "QualificationTypeStatus": p["QualificationTypeStatus"],
            "IsRequestable": False,
            "AutoGranted": False,
        }
        self.effects["qualification type created"] += 1
        return {"QualificationType": self.qualification_types[type_id]}

    def _ListQualificationTypes(self, p: dict[str, Any]) -> dict[str, Any]:
        # Every type listed is the caller's own: the fake has no other requester's.
        query = str(p.get("Query", "")).lower()
        found = [t for t in self.qualification_types.values() if query in t["Name"].lower()]
        return page("QualificationTypes", found, p)

    def _own_type(self, type_id: str) -> None:
        if type_id not in self.qualification_types:
            raise Refused(f"QualificationType {type_id} does not exist or is not yours.")

    def _AssociateQualificationWithWorker(self, p: dict[str, Any]) -> dict[str, Any]:
        self._own_type(p["QualificationTypeId"])
        key = (p["QualificationTypeId"], p["WorkerId"])
        if key not in self.qualified:
            self.effects["qualification granted"] += 1
        self.qualified[key] = p.get("IntegerValue", 1)
        return {}

    def _DisassociateQualificationFromWorker(self, p: dict[str, Any]) -> dict[str, Any]:
        self._own_type(p["QualificationTypeId"])
        if self.qualified.pop((p["QualificationTypeId"], p["WorkerId"]), None) is not None:
            self.effects["qualification revoked"] += 1
        return {}

    def _GetQualificationScore(self, p: dict[str, Any]) -> dict[str, Any]:
        self._own_type(p["QualificationTypeId"])
        value = self.qualified.get((p["QualificationTypeId"], p["WorkerId"]))
        if value is None:
            raise Refused(f"You requested a Qualification that does not exist for worker {p['WorkerId']}.")
        return {
            "Qualification": {
                "QualificationTypeId": p["QualificationTypeId"],
                "WorkerId": p["WorkerId"],
                "IntegerValue": value,
                "Status": "Granted",
            }
        }


_DEFAULT_PROFILE = {LOCALE: "US", APPROVED_HITS: 5000, APPROVAL_RATE: 99}


def _guarded(req: dict[str, Any]) -> str:
    """What the requirement guards: ActionsGuarded, or as the deprecated RequiredToPreview says."""
    if "ActionsGuarded" in req:
        return str(req["ActionsGuarded"])
    return "PreviewAndAccept" if req.get("RequiredToPreview") else "Accept"


def _compare(comparator: str, held: Any, wanted: list[Any]) -> bool:
    if comparator in SET_VALUES:
        return (held in wanted) == (comparator == "In")
    value = wanted[0]
    return {
        "LessThan": held < value,
        "LessThanOrEqualTo": held <= value,
        "GreaterThan": held > value,
        "GreaterThanOrEqualTo": held >= value,
        "EqualTo": held == value,
        "NotEqualTo": held != value,
    }[comparator]
