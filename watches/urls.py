"""/watches/: the list, making a watch, removing one, confirming an address, unsubscribing."""

from django.urls import path

from . import views

app_name = "watches"

urlpatterns = [
    path("", views.index, name="index"),
    path("new/", views.new, name="new"),
    path("<int:pk>/remove/", views.remove, name="remove"),
    path("e/<str:token>/", views.by_email, name="by_email"),
    path("confirm/<str:token>/", views.confirm, name="confirm"),
    path("unsubscribe/<str:token>/", views.unsubscribe, name="unsubscribe"),
]
