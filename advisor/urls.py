"""The advisor page; the CSV download is the same URL with `format=csv`."""

from django.urls import path

from . import views

app_name = "advisor"

urlpatterns = [
    path("", views.index, name="index"),
]
