"""The REST API: jobs (create, publish, pause, resume, expire, sync, progress, items, responses, aggregate,
outcomes), workers (block, unblock: named by keyed pseudonym), releases, crawl runs and background operations.
Each action needs the named permission the admin's matching action needs (api/permissions.py), and money
goes through the same operations and ledger."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from django.db.models import Count, QuerySet
from django.http import FileResponse, Http404, HttpResponseBase
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import APIException, NotFound, ValidationError
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response as ApiResponse
from rest_framework.serializers import DateTimeField, Serializer

from accounts import audit
from accounts.models import AuditEvent
from accounts.roles import SPEND_MONEY, START_CRAWL
from aggregation.models import AggregationRun, ItemOutcome, RunTrigger
from aggregation.tasks import aggregate_job_task
from annotation.models import Item, Job, Response, Worker
from annotation.work.job_errors import JobError
from annotation.work.job_requests import JobRequest, open_job
from annotation.work.jobs import job_progress
from annotation.work.pseudonyms import PseudonymKeyError, is_pseudonym, pseudonym
from annotation.work.records import pseudonym_key, worker_by_pseudonym, worker_pseudonym
from api import serializers as s
from api.csv_streams import csv_chunks, streamed_csv
from crawler import services as crawls
from crawler.models import CrawlRun
from export.models import Release
from operations.models import Operation
from operations.services import start_operation

ID = r"\d{1,18}"  # a database id; anything else is not found
CSV_CHUNK_ROWS = 2000  # rows read from the database at a time for a CSV download
AS_JSON_DATETIME = DateTimeField().to_representation  # CSV dates read as the JSON's do


class Conflict(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_code = "conflict"


class Unavailable(APIException):
    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    default_code = "unavailable"


class CSVRenderer(BaseRenderer):
    """`?format=csv`. Row lists are streamed by their views (api/csv_streams.py); what reaches this
    renderer is an error (403, 404, 503), written as a one-row CSV that says what went wrong."""

    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(
        self, data: Any, accepted_media_type: str | None = None, renderer_context: Any = None
    ) -> bytes:
        rows = [data] if isinstance(data, dict) else data
        if not isinstance(rows, list) or not rows:
            return b""
        header = list(rows[0])
        return b"".join(csv_chunks(header, ([row.get(name) for name in header] for row in rows)))


ROWS = (
    "JSON: a page of rows by cursor (`next`, `previous`) with the total `count`. CSV (`?format=csv`): "
    "a header row, then every row, streamed."
)


def csv_or_pages(serializer: type[Serializer[Any]]) -> dict[tuple[int, str], OpenApiResponse]:
    """The schema of a row list: JSON pages of rows, or (`?format=csv`) every row as CSV text."""
    return {
        (200, "application/json"): OpenApiResponse(serializer(many=True), description=ROWS),
        (200, "text/csv"): OpenApiResponse(OpenApiTypes.STR, description=ROWS),
    }


def same_row(row: Any) -> Any:
    return row


def item_row(item: Item) -> dict[str, Any]:
    return {
        "key": item.key,
        "group": item.group,
        "is_gold": item.is_gold,
        "payload": item.payload,
        "responses": item.responses_total,  # type: ignore[attr-defined]
    }


def response_row(answer: Response) -> dict[str, Any]:
    return {
        "item": answer.item.key,
        "worker": worker_pseudonym(answer.worker),
        "label": answer.label,
        "created": answer.created,
    }


class JobViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet[Job]):
    queryset = Job.objects.order_by("-pk").prefetch_related("teams")
    serializer_class = s.JobSerializer
    lookup_value_regex = ID
    needs = {
        "list": "annotation.view_job",
        "retrieve": "annotation.view_job",
        "create": "annotation.add_job",
        "publish": SPEND_MONEY,
        "pause": "annotation.change_job",
        "resume": "annotation.change_job",
        "expire": SPEND_MONEY,
        "sync": "annotation.change_job",
        "progress": "annotation.view_job",
        "items": "annotation.view_item",
        "responses": "annotation.view_response",
        "aggregate": "aggregation.add_aggregationrun",
        "runs": "aggregation.view_aggregationrun",
        "outcomes": "aggregation.view_itemoutcome",
    }

    @extend_schema(request=s.JobCreateSerializer, responses={201: s.JobSerializer})
    def create(self, request: Request) -> ApiResponse:
        given = s.JobCreateSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        data = given.validated_data
        asked = JobRequest(
            data["task_type"],
            data["filters"],
            market=data["market"],
            params=data["params"],
            budget=data.get("budget"),
            name=data["name"],
            allow_single_worker=data["allow_single_worker"],
        )
        try:
            job = open_job(asked, created_by=request.user)  # the checks and words of the command and page
        except JobError as error:
            raise ValidationError({"detail": str(error)}) from None
        job.teams.set(data.get("teams", []))
        return ApiResponse(s.JobSerializer(job).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses={202: s.OperationSerializer})
    @action(detail=True, methods=["post"])
    def publish(self, request: Request, pk: str) -> ApiResponse:
        """Publish in the background (the ledger records any paid call first); poll the operation."""
        return self._in_background("annotation.publish_jobs", "Publish", AuditEvent.Action.PUBLISHED)

    @extend_schema(request=None, responses={202: s.OperationSerializer})
    @action(detail=True, methods=["post"])
    def pause(self, request: Request, pk: str) -> ApiResponse:
        """Pause here and at the market in the background (no market call in the request)."""
        return self._in_background("annotation.pause_jobs", "Pause")

    @extend_schema(request=None, responses={202: s.OperationSerializer})
    @action(detail=True, methods=["post"])
    def resume(self, request: Request, pk: str) -> ApiResponse:
        """Resume at the market, then here, in the background; poll the operation for the outcome."""
        return self._in_background("annotation.resume_jobs", "Resume")

    @extend_schema(request=None, responses={202: s.OperationSerializer})
    @action(detail=True, methods=["post"])
    def expire(self, request: Request, pk: str) -> ApiResponse:
        """Stop offering the job's HITs at the market (pauses the job), in the background, as the admin's
        'Expire on the market' does; poll the operation."""
        return self._in_background("annotation.expire_jobs", "Expire", AuditEvent.Action.EXPIRED)

    @extend_schema(request=None, responses={202: s.OperationSerializer})
    @action(detail=True, methods=["post"])
    def sync(self, request: Request, pk: str) -> ApiResponse:
        """Bring the job up to date with its market in the background; poll the operation."""
        return self._in_background("annotation.sync_jobs", "Sync")

    def _in_background(self, kind: str, verb: str, audited: str = "") -> ApiResponse:
        """Start the job's operation and answer 202 with it; an action that spends money is audited."""
        job = self.get_object()
        answer = in_background(self.request, kind, f"{verb} job {job.pk}", {"job_ids": [job.pk]})
        if audited:
            audit.record(self.request.user, audited, f"job {job.pk}", operation=answer.data["id"], via="api")
        return answer

    def _page(self, rows: Any) -> Sequence[Any]:
        """This request's page of any rows (the job's items, responses, runs or outcomes)."""
        return self.paginate_queryset(rows) or []

    @extend_schema(responses=s.ProgressSerializer)
    @action(detail=True, methods=["get"])
    def progress(self, request: Request, pk: str) -> ApiResponse:
        progress = job_progress(self.get_object())
        return ApiResponse(s.ProgressSerializer({**progress.__dict__, "fraction": progress.fraction}).data)

    def _rows(
        self,
        rows: QuerySet[Any],
        serializer: Serializer[Any],
        to_row: Callable[[Any], Any],
        name: str,
        csv_values: Sequence[str],
        to_cells: Callable[[tuple[Any, ...]], Sequence[Any]] = tuple,
    ) -> HttpResponseBase:
        """Every row as a streamed CSV download (`?format=csv`), or this request's JSON page.

        The CSV reads `csv_values` (the serializer's fields, as database paths) with a server-side
        cursor, a chunk at a time: no model instance or serializer per row, so 100k rows stream fast."""
        if isinstance(self.request.accepted_renderer, CSVRenderer):
            values = rows.values_list(*csv_values).iterator(CSV_CHUNK_ROWS)
            filename = f"job-{self.kwargs['pk']}-{name}.csv"
            return streamed_csv(list(serializer.fields), map(to_cells, values), filename)
        page = [to_row(r) for r in self._page(rows)]
        return self.get_paginated_response(type(serializer)(page, many=True).data)

    @extend_schema(responses=csv_or_pages(s.ItemSerializer))
    @action(detail=True, methods=["get"], renderer_classes=[JSONRenderer, CSVRenderer])
    def items(self, request: Request, pk: str) -> HttpResponseBase:
        items = Item.objects.filter(job=self.get_object()).annotate(responses_total=Count("responses"))
        return self._rows(items.order_by("pk"), s.ItemSerializer(), item_row, "items", s.ITEM_VALUES)

    @extend_schema(responses=csv_or_pages(s.ResponseRowSerializer))
    @action(detail=True, methods=["get"], renderer_classes=[JSONRenderer, CSVRenderer])
    def responses(self, request: Request, pk: str) -> HttpResponseBase:
        """Long format: one row per (item, worker) answer; workers by keyed pseudonym only."""
        answers = (
            Response.objects.filter(job=self.get_object()).select_related("item", "worker").order_by("pk")
        )
        try:
            key = pseudonym_key()  # before the first row: a streamed download cannot turn into a 503
        except PseudonymKeyError as error:
            raise Unavailable(str(error)) from None

        def cells(values: tuple[Any, ...]) -> Sequence[Any]:
            item, market, external_id, label, created = values
            return item, pseudonym(market, external_id, key), label, AS_JSON_DATETIME(created)

        return self._rows(
            answers, s.ResponseRowSerializer(), response_row, "responses", s.RESPONSE_VALUES, cells
        )

    @extend_schema(request=s.AggregateSerializer, responses={202: None})
    @action(detail=True, methods=["post"])
    def aggregate(self, request: Request, pk: str) -> ApiResponse:
        """Aggregate again in the background with these policy overrides; see `runs` and `outcomes`."""
        job = self.get_object()
        given = s.AggregateSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        aggregate_job_task.delay_on_commit(job.pk, RunTrigger.MANUAL, dict(given.validated_data))  # type: ignore[attr-defined]
        return ApiResponse({"detail": "aggregation queued"}, status=status.HTTP_202_ACCEPTED)

    @extend_schema(responses=s.AggregationRunSerializer(many=True))
    @action(detail=True, methods=["get"])
    def runs(self, request: Request, pk: str) -> ApiResponse:
        runs = AggregationRun.objects.filter(job=self.get_object()).order_by("-pk")
        page = self._page(runs)
        return self.get_paginated_response(s.AggregationRunSerializer(page, many=True).data)

    @extend_schema(responses=csv_or_pages(s.OutcomeSerializer))
    @action(detail=True, methods=["get"], renderer_classes=[JSONRenderer, CSVRenderer])
    def outcomes(self, request: Request, pk: str) -> HttpResponseBase:
        outcomes = ItemOutcome.objects.filter(job=self.get_object()).select_related("item").order_by("pk")
        return self._rows(outcomes, s.OutcomeSerializer(), same_row, "outcomes", s.OUTCOME_VALUES)


def in_background(request: Request, kind: str, label: str, params: dict[str, Any]) -> ApiResponse:
    """Start the background operation (no market call in the request) and answer 202 with it."""
    operation = start_operation(kind, label, params, total=1, user=request.user)
    operation.refresh_from_db()
    return ApiResponse(s.OperationSerializer(operation).data, status=status.HTTP_202_ACCEPTED)


WORKER = OpenApiParameter(
    "pseudonym", str, OpenApiParameter.PATH, description="A keyed pseudonym: `w_` and 20 hex digits."
)


class WorkerViewSet(viewsets.GenericViewSet[Worker]):
    """Block or unblock a worker, here and at their market, in the background, as the admin does.

    A worker is named by the keyed pseudonym the API shows (raw market ids never leave the database);
    what the URL carries is checked for a pseudonym's form (400) before anything is looked up (404)."""

    queryset = Worker.objects.none()
    serializer_class = s.BlockSerializer
    lookup_field = "pseudonym"
    lookup_value_regex = r"[^/]+"  # anything reaches the view, which answers 400 for a malformed name
    needs = {"block": "annotation.change_worker", "unblock": "annotation.change_worker"}

    def _worker(self, name: str) -> Worker:
        if not is_pseudonym(name):
            raise ValidationError({"pseudonym": "a worker pseudonym is w_ and 20 lowercase hex digits"})
        try:
            worker = worker_by_pseudonym(name)
        except PseudonymKeyError as error:
            raise Unavailable(str(error)) from None
        if worker is None:
            raise NotFound("no worker has this pseudonym")
        return worker

    @extend_schema(parameters=[WORKER], request=s.BlockSerializer, responses={202: s.OperationSerializer})
    @action(detail=True, methods=["post"])
    def block(self, request: Request, pseudonym: str) -> ApiResponse:
        """Block at the market, then here (their open work is returned); poll the operation."""
        given = s.BlockSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        worker = self._worker(pseudonym)
        reason = given.validated_data.get("reason") or f"blocked by {request.user}"
        params = {"worker_ids": [worker.pk], "reason": reason}
        return in_background(request, "annotation.block_workers", f"Block worker {pseudonym}", params)

    @extend_schema(parameters=[WORKER], request=None, responses={202: s.OperationSerializer})
    @action(detail=True, methods=["post"])
    def unblock(self, request: Request, pseudonym: str) -> ApiResponse:
        """Unblock at the market, then here; poll the operation."""
        worker = self._worker(pseudonym)
        params = {"worker_ids": [worker.pk]}
        return in_background(request, "annotation.unblock_workers", f"Unblock worker {pseudonym}", params)


class ReleaseViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet[Release]):
    queryset = Release.objects.order_by("-created", "-pk")
    serializer_class = s.ReleaseSerializer
    lookup_field = "version"
    lookup_value_regex = r"[A-Za-z0-9._-]{1,64}"
    needs = {"*": "export.view_release"}

    @extend_schema(responses={200: dict})
    @action(detail=True, methods=["get"])
    def manifest(self, request: Request, version: str) -> ApiResponse:
        return ApiResponse(self.get_object().manifest)

    @extend_schema(
        parameters=[OpenApiParameter("name", str, OpenApiParameter.PATH)],
        responses={(200, "application/octet-stream"): bytes},
    )
    @action(detail=True, methods=["get"], url_path=r"files/(?P<name>[A-Za-z0-9._/-]{1,200})")
    def file(self, request: Request, version: str, name: str) -> FileResponse:
        release = self.get_object()
        if name not in release.file_names():  # only listed names reach the filesystem
            raise Http404(f"release {version} has no file {name!r}")
        return FileResponse(
            (release.path / name).open("rb"), as_attachment=True, filename=name.rsplit("/", 1)[-1]
        )


class CrawlViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet[CrawlRun]):
    queryset = CrawlRun.objects.order_by("-pk")
    serializer_class = s.CrawlRunSerializer
    lookup_value_regex = ID
    needs = {
        "list": "crawler.view_crawlrun",
        "retrieve": "crawler.view_crawlrun",
        "create": START_CRAWL,
        "stop": START_CRAWL,
    }

    @extend_schema(request=s.CrawlStartSerializer, responses={201: s.CrawlRunSerializer})
    def create(self, request: Request) -> ApiResponse:
        given = s.CrawlStartSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        data = given.validated_data
        try:
            run = crawls.request_crawl(
                data["site"],
                archive=data["archive"],
                limit=data.get("limit"),
                user_id=request.user.pk,
                shared=data["shared"],
                start_urls=data["start_urls"],
            )
        except crawls.StartUrlRefused as error:
            raise ValidationError({"start_urls": [str(error)]}) from None
        except crawls.CrawlRequestError as error:
            raise Conflict(str(error)) from None
        return ApiResponse(s.CrawlRunSerializer(run).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses=s.CrawlRunSerializer)
    @action(detail=True, methods=["post"])
    def stop(self, request: Request, pk: str) -> ApiResponse:
        run = self.get_object()
        crawls.stop_crawl(run.pk)
        run.refresh_from_db()
        return ApiResponse(s.CrawlRunSerializer(run).data)


class OperationViewSet(mixins.RetrieveModelMixin, viewsets.GenericViewSet[Operation]):
    queryset = Operation.objects.all()
    serializer_class = s.OperationSerializer
    lookup_value_regex = ID
    needs = {"*": "operations.view_operation"}
