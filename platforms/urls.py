from django.urls import path

from advisor import compare_page

from . import views

app_name = "platforms"

urlpatterns = [
    path("", views.home, name="home"),
    path("platforms/", views.comparison, name="comparison"),
    path("offerings/", views.offering_explorer, name="offerings"),
    path("offerings/compare/", compare_page.offering_compare, name="compare"),
    path("platforms/<slug:slug>/", views.platform_detail, name="detail"),
]
