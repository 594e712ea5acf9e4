from django.contrib import admin
from django.urls import include, path

from config.health import healthz
from home.views import home

# The admin is Stancework's: its name, and "View site" goes to the staff home page.
admin.site.site_header = admin.site.site_title = "Stancework"
admin.site.index_title = "Admin"
admin.site.site_url = "/"

urlpatterns = [
    path("", home, name="home"),
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
    path("jobs/", include("home.urls")),
    path("teams/", include("accounts.urls")),
    path("annotate/", include("annotation.web.urls")),
    path("aggregation/", include("aggregation.urls")),
    path("releases/", include("export.urls")),
    path("api/", include("api.urls")),
]
