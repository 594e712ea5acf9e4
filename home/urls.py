from django.urls import path

from home import job_exports, jobs

app_name = "jobs"

urlpatterns = [
    path("new/", jobs.new_job, name="new"),
    path("<int:job_id>/", jobs.job_page, name="job"),
    path("<int:job_id>/download/", job_exports.job_download, name="download"),
]
