"""Short links of saved scenarios: /s/ (save by POST, a logged-in user's list by GET) and
/s/<key>/ (the advisor page of one)."""

from django.urls import path

from . import saved_page, sharing

app_name = "scenarios"

urlpatterns = [
    path("", sharing.index, name="index"),
    path("<str:key>/", saved_page.show, name="show"),
]
