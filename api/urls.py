from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.permissions import IsAuthenticated
from rest_framework.routers import APIRootView, DefaultRouter

from api import views


class EndpointList(APIRootView):
    """The list of endpoints: any logged-in person may read it (each endpoint checks its own permission)."""

    permission_classes = [IsAuthenticated]


class Router(DefaultRouter):
    APIRootView = EndpointList


router = Router()
router.include_format_suffixes = False  # release file names end in .json; `?format=csv` picks CSV
router.register("jobs", views.JobViewSet)
router.register("workers", views.WorkerViewSet)
router.register("releases", views.ReleaseViewSet)
router.register("crawls", views.CrawlViewSet)
router.register("operations", views.OperationViewSet)

urlpatterns = [
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("", include(router.urls)),
]
