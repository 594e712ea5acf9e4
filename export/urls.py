from django.urls import path

from export import release_pages, views

app_name = "export"

urlpatterns = [
    path("", views.releases, name="releases"),
    path("diff/", views.release_diff, name="diff"),
    path("build/", release_pages.build, name="build"),
    path("<str:version>/", views.release, name="release"),
    path("<str:version>/zip", views.release_zip, name="zip"),
    path("<str:version>/files/<path:name>", views.release_file, name="file"),
    path("<str:version>/preview/<path:name>", release_pages.preview, name="preview"),
]
