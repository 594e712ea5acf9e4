"""Teams and invitations from the browser: create a team, invite people (how many, for how long),
copy each link, see who joined, revoke a link nobody used. The same services as `manage.py invite`."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render

from accounts import invitations
from accounts.admin import InviteForm
from accounts.models import Invitation, Team
from accounts.permissions import staff_permission

VIEW_TEAMS, ADD_TEAM = "accounts.view_team", "accounts.add_team"
ADD_INVITATION, CHANGE_INVITATION = "accounts.add_invitation", "accounts.change_invitation"


class TeamForm(forms.ModelForm):
    class Meta:
        model = Team
        fields = ["name"]


def _context(request: HttpRequest, **extra: Any) -> dict[str, Any]:
    return {**admin.site.each_context(request), **extra}


@staff_permission(VIEW_TEAMS, ADD_TEAM)
def teams(request: HttpRequest) -> HttpResponse:
    """Every team with its members and open invitations; POST makes a team."""
    form = TeamForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        team = form.save()
        messages.success(request, f"Team {team.name} created: invite people to it below.")
        return redirect("teams:team", team_id=team.pk)
    listed = Team.objects.order_by("name").prefetch_related("members")
    return render(request, "accounts/teams.html", _context(request, title="Teams", teams=listed, form=form))


@staff_permission(VIEW_TEAMS, ADD_INVITATION)
def team(request: HttpRequest, team_id: int) -> HttpResponse:
    """One team: its members, its invitations with their links; POST invites `count` people."""
    found = get_object_or_404(Team, pk=team_id)
    form = InviteForm(request.POST or None)
    if request.method == "POST" and form.is_valid() and _invite(request, found, form):
        return redirect("teams:team", team_id=found.pk)
    invited = found.invitations.select_related("used_by")
    rows = [(invitation, invitations.invitation_url(invitation)) for invitation in invited]
    context = _context(request, title=f"Team {found.name}", team=found, form=form, rows=rows)
    return render(request, "accounts/team.html", context)


def _invite(request: HttpRequest, team: Team, form: InviteForm) -> bool:
    """Make the links the form asks for; a refusal is put on the form. Whether any were made."""
    try:
        valid_for = invitations.parse_duration(form.cleaned_data["expires"])
        made = invitations.create_invitations(team, form.cleaned_data["count"], valid_for, by=request.user)
    except invitations.InvitationError as error:
        form.add_error("expires", str(error))
        return False
    messages.success(request, f"{len(made)} invitation link(s) made: copy each below and send it.")
    return True


@staff_permission(VIEW_TEAMS, CHANGE_INVITATION)
def revoke(request: HttpRequest, invitation_id: int) -> HttpResponse:
    invitation = get_object_or_404(Invitation, pk=invitation_id)
    if request.method == "POST":
        if invitations.revoke(invitation):
            messages.success(request, f"Invitation {invitation.pk} revoked: its link no longer works.")
        else:
            messages.error(request, f"Invitation {invitation.pk} was used or had expired already.")
    return redirect("teams:team", team_id=invitation.team_id)
