from django.urls import path

from aggregation import views

app_name = "aggregation"

urlpatterns = [
    path("jobs/<int:job_id>/", views.dashboard, name="dashboard"),
    path("claims/<int:cid>/clusters/", views.claim_clusters, name="claim_clusters"),
    path("claims/<int:cid>/compare/<int:other_cid>/", views.compare_claims, name="compare_claims"),
    path("similar-claims/", views.similar_claim_pairs, name="similar_claim_pairs"),
]
