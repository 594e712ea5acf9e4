"""`/`: staff see what needs them and what happened lately; annotators go to their queue."""

from __future__ import annotations

from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse

from home.services import NEEDS_A_PERSON, RECENTLY, sections_for


def home(request: HttpRequest) -> HttpResponse:
    """The start page. The page itself needs staff status; each section names its own permission."""
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path(), reverse("annotation:login"))
    if not request.user.is_staff:
        return redirect("annotation:queue")
    context = {
        "needs": sections_for(request.user, NEEDS_A_PERSON),
        "recent": sections_for(request.user, RECENTLY),
    }
    return render(request, "home/home.html", context)
