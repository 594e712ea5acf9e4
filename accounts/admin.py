"""Teams and their invitation links; the audit trail, read-only; people's pages, their password in words."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import ReadOnlyPasswordHashWidget, UserChangeForm
from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from accounts.invitations import InvitationError, create_invitations, invitation_url, parse_duration
from accounts.models import AuditEvent, Invitation, Team
from config.columns import PlainFields, ReadOnlyRecords, in_words


class InviteForm(forms.Form):
    count = forms.IntegerField(min_value=1, max_value=1000, initial=1)
    expires = forms.CharField(initial="7d", help_text="7d, 12h, …")


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin):
    list_display = ["name", "member_count", "created"]
    search_fields = ["name", "members__username"]
    filter_horizontal = ["members"]
    actions = ["invite"]

    @admin.display(description="members")
    def member_count(self, team: Team) -> int:
        return team.members.count()

    @admin.action(description="Create invitation links (single use, expiring)", permissions=["add"])
    def invite(self, request: HttpRequest, queryset: QuerySet[Team]) -> None:
        form = InviteForm(
            {"count": request.POST.get("count", 1), "expires": request.POST.get("expires", "7d")}
        )
        if not form.is_valid():
            self.message_user(request, f"No links made: {form.errors.as_text()}", messages.ERROR)
            return
        try:
            valid_for = parse_duration(form.cleaned_data["expires"])
            for team in queryset:
                made = create_invitations(team, form.cleaned_data["count"], valid_for, by=request.user)
                links = format_html_join(" ", "<code>{}</code>", ((invitation_url(i),) for i in made))
                self.message_user(request, format_html("{}: {}", team.name, links))
        except InvitationError as error:
            self.message_user(request, str(error), messages.ERROR)


@admin.register(Invitation)
class InvitationAdmin(admin.ModelAdmin):
    list_display = ["pk", "team", "created_by", "created", "expires", "used_by", "used_at", "link"]
    list_filter = ["team"]
    readonly_fields = ["team", "created_by", "created", "expires", "used_by", "used_at", "link"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # made by the team's action or `manage.py invite`

    @admin.display(description="link")
    def link(self, invitation: Invitation) -> SafeString | str:
        if invitation.used_at is not None:
            return "used"
        return format_html("<code>{}</code>", invitation_url(invitation))


@admin.register(AuditEvent)
class AuditEventAdmin(ReadOnlyRecords, PlainFields, admin.ModelAdmin):
    list_display = ["at", "actor_name", "action", "target", "detail_table"]
    list_filter = ["action"]
    search_fields = ["actor_name", "target"]
    date_hierarchy = "at"
    fields = readonly_fields = ("at", "actor", "actor_name", "action", "target", "detail_table")


class PasswordInWords(ReadOnlyPasswordHashWidget):
    """A person's password as their page shows it: how it is kept in words ("pbkdf2 sha256", not the
    hasher's code), its salt and hash masked as Django masks them."""

    def get_context(self, name: str, value: Any, attrs: Any) -> dict[str, Any]:
        context = super().get_context(name, value, attrs)
        for entry in context["summary"]:
            if "value" in entry:
                entry["value"] = in_words(entry["value"])
        return context


class PersonChangeForm(UserChangeForm):  # type: ignore[type-arg]
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if "password" in self.fields:
            self.fields["password"].widget = PasswordInWords()


admin.site.unregister(User)


@admin.register(User)
class PersonAdmin(UserAdmin):  # type: ignore[type-arg]
    form = PersonChangeForm
