from django.contrib import admin
from django.urls import include, path
from django.views.generic import RedirectView

from config.health import healthz

urlpatterns = [
    path("", RedirectView.as_view(url="/admin/", permanent=False)),
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
    path("annotate/", include("annotation.web.urls")),
    path("aggregation/", include("aggregation.urls")),
    path("releases/", include("export.urls")),
    path("api/", include("api.urls")),
]
