from django.urls import path

from accounts import team_pages

app_name = "teams"

urlpatterns = [
    path("", team_pages.teams, name="teams"),
    path("<int:team_id>/", team_pages.team, name="team"),
    path("invitations/<int:invitation_id>/revoke/", team_pages.revoke, name="revoke"),
]
