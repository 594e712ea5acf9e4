from django.urls import path

from aggregation import adjudicating, views

app_name = "aggregation"

urlpatterns = [
    path("jobs/<int:job_id>/", views.dashboard, name="dashboard"),
    path("jobs/<int:job_id>/adjudicate/", adjudicating.page, name="adjudicate"),
    path("jobs/<int:job_id>/adjudicate/item/", adjudicating.item, name="adjudicate_item"),
    path("jobs/<int:job_id>/adjudicate/<int:outcome_id>/", adjudicating.decide, name="adjudicate_decide"),
    path(
        "jobs/<int:job_id>/adjudicate/accept-model/",
        adjudicating.accept_model,
        name="adjudicate_accept_model",
    ),
    path("claims/<int:cid>/clusters/", views.claim_clusters, name="claim_clusters"),
    path("claims/<int:cid>/compare/<int:other_cid>/", views.compare_claims, name="compare_claims"),
    path("similar-claims/", views.similar_claim_pairs, name="similar_claim_pairs"),
]
