from collections.abc import Callable
from functools import cache
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.urls import include, path
from django.utils.module_loading import import_string
from django.views.decorators.csrf import csrf_exempt
from rest_framework.permissions import IsAuthenticated
from rest_framework.renderers import JSONRenderer, TemplateHTMLRenderer
from rest_framework.routers import APIRootView, DefaultRouter

from api import views


class EndpointPage(TemplateHTMLRenderer):
    """The list of endpoints as a page for a browser (JSON for everyone else), with a way home."""

    template_name = "api/endpoints.html"

    def get_template_context(self, data: Any, renderer_context: Any) -> dict[str, Any]:
        return {"endpoints": data}


class EndpointList(APIRootView):
    """The list of endpoints: any logged-in person may read it (each endpoint checks its own permission)."""

    permission_classes = [IsAuthenticated]
    renderer_classes = [JSONRenderer, EndpointPage]


class Router(DefaultRouter):
    APIRootView = EndpointList


def loaded_on_first_request(view_class: str, **initkwargs: Any) -> Callable[..., HttpResponse]:
    """The view of `view_class`, imported when it first serves. drf-spectacular's schema generator
    brings django.test and most of DRF with it, which `manage.py check` (it reads the URLs) and the
    pages that never show the schema would otherwise load."""

    @cache
    def view() -> Callable[..., HttpResponse]:
        return import_string(view_class).as_view(**initkwargs)  # type: ignore[no-any-return]

    @csrf_exempt  # as DRF's own views are
    def serve(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        return view()(request, *args, **kwargs)

    return serve


router = Router()
router.include_format_suffixes = False  # release file names end in .json; `?format=csv` picks CSV
router.register("jobs", views.JobViewSet)
router.register("workers", views.WorkerViewSet)
router.register("releases", views.ReleaseViewSet)
router.register("crawls", views.CrawlViewSet)
router.register("operations", views.OperationViewSet)

urlpatterns = [
    path("schema/", loaded_on_first_request("drf_spectacular.views.SpectacularAPIView"), name="api-schema"),
    path(
        "docs/",
        # Its template carries the way home every page has.
        loaded_on_first_request(
            "drf_spectacular.views.SpectacularSwaggerView",
            url_name="api-schema",
            template_name="api/swagger_ui.html",
        ),
        name="api-docs",
    ),
    path("", include(router.urls)),
]
