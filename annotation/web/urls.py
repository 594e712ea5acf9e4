from django.contrib.auth import views as auth_views
from django.urls import path

from annotation.web import views

app_name = "annotation"

urlpatterns = [
    path("", views.queue, name="queue"),
    path("login/", auth_views.LoginView.as_view(template_name="annotation/login.html"), name="login"),
    path("logout/", auth_views.LogoutView.as_view(next_page="annotation:login"), name="logout"),
    path("mine/", views.my_work, name="my_work"),
    path("join/<str:token>/", views.join_team, name="join"),
    path("jobs/<int:pk>/", views.job_home, name="job"),
    path("jobs/<int:pk>/quiz/", views.quiz, name="quiz"),
    path("jobs/<int:pk>/start/", views.start, name="start"),
    path("assignments/<int:pk>/", views.assignment_page, name="assignment"),
]
