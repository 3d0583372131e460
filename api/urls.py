"""API routes: /api/v1/ (catalogue, advisor), /api/schema/ (OpenAPI 3), /api/docs/, /api/redoc/."""

from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView
from rest_framework.routers import DefaultRouter

from . import model_catalogue, views

app_name = "api"

router = DefaultRouter()
router.register("platforms", views.PlatformViewSet, basename="platform")
router.register("accelerators", views.AcceleratorViewSet, basename="accelerator")
router.register("offerings", views.OfferingViewSet, basename="offering")
router.register("storage-prices", views.StoragePriceViewSet, basename="storageprice")
router.register("exchange-rates", views.ExchangeRateViewSet, basename="exchangerate")
router.register("presets", views.PresetViewSet, basename="preset")
router.register("models", model_catalogue.CatalogueModelViewSet, basename="model")

urlpatterns = [
    path("v1/", include(router.urls)),
    path("v1/estimate/", views.EstimateView.as_view(), name="estimate"),
    path("v1/advise/", views.AdviseView.as_view(), name="advise"),
    # Last: anything else under v1/ is a 404 in the API's error shape.
    re_path(r"^v1/", views.NotFoundView.as_view(), name="not-found"),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api:schema"), name="docs"),
    path("redoc/", SpectacularRedocView.as_view(url_name="api:schema"), name="redoc"),
]
