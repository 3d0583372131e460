"""API views: read-only viewsets for the catalogue, one APIView per advisor action.

Views stay thin: validate the query or body with a serializer, call a queryset function or a
service, serialize. Catalogue querysets fetch everything a page needs in a fixed number of queries
(annotations and prefetches), whatever the page size.
"""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING, Any, TypeVar, cast

from django.core.cache import cache
from django.core.exceptions import NON_FIELD_ERRORS
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError
from django.db.models import Count, Model, Prefetch, Q, QuerySet
from django.utils import timezone
from django.utils.translation import get_language
from drf_spectacular.utils import (
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from rest_framework import exceptions, status, viewsets
from rest_framework.decorators import action
from rest_framework.pagination import BasePagination
from rest_framework.permissions import AllowAny, BasePermission
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import BaseSerializer, as_serializer_error
from rest_framework.settings import api_settings
from rest_framework.views import APIView

from advisor import presets
from advisor.services import advise_scenario, estimate_scenario, scenario_on_offerings
from platforms.compare import CompareError, compare_offerings
from platforms.models import (
    Accelerator,
    AcceleratorAlias,
    Currency,
    ExchangeRate,
    MigProfile,
    Offering,
    Platform,
    PlatformFact,
    PriceObservation,
    StoragePrice,
)
from platforms.services import catalogue_version, manual_source, price_observation_create

from . import examples
from .advice import (
    AdviceReportSerializer,
    EstimateSerializer,
    PresetItem,
    PresetSerializer,
    advice_report_json,
)
from .compare import CompareQuerySerializer, OfferingComparisonSerializer
from .exceptions import no_fit_body
from .filters import (
    DEFAULT_UNIT,
    OfferingQuerySerializer,
    OfferingUnitSerializer,
    PriceHistoryQuerySerializer,
    filter_offerings,
    listed_page_attach,
    offering_order,
    offerings_annotated,
    offerings_listed,
    price_history,
    query_data,
    unknown_parameters,
)
from .pagination import CataloguePagination, OfferingCursorPagination
from .parsers import StrictJSONParser
from .permissions import AdminModelPermissions
from .schema import ApiAutoSchema, ErrorSerializer
from .serializers import (
    AcceleratorSerializer,
    ExchangeRateSerializer,
    OfferingSerializer,
    PlatformDetailSerializer,
    PlatformSerializer,
    PriceHistorySerializer,
    PriceObservationCreateSerializer,
    PriceObservationSerializer,
    ScenarioSerializer,
    StoragePriceSerializer,
)

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django_stubs_ext import StrOrPromise

_MT = TypeVar("_MT", bound=Model)


def _constraint_message(model: type[Model], name: str) -> StrOrPromise:
    constraint = next(c for c in model._meta.constraints if c.name == name)
    message = constraint.violation_error_message  # lazy: translated when shown
    assert message is not None  # Django gives every constraint a default message
    return message


PRICE_CLASH = _constraint_message(PriceObservation, "price_one_per_offering_unit_time")


def _price_errors(error: DjangoValidationError) -> dict[str, Any]:
    """Model validation errors as field errors; the (offering, unit, observed_at) clash is about
    `observed_at`, the one field of the three the client chose freely."""
    detail = as_serializer_error(error)
    general = detail.pop(NON_FIELD_ERRORS, [])
    clash = [message for message in general if str(message) == str(PRICE_CLASH)]
    if clash:
        detail.setdefault("observed_at", []).extend(clash)
    rest = [message for message in general if message not in clash]
    if rest:
        detail[api_settings.NON_FIELD_ERRORS_KEY] = rest
    return detail


class CatalogueViewSet(viewsets.ReadOnlyModelViewSet[_MT]):
    """Base of the catalogue endpoints: read-only, paginated, JSON bodies only."""

    schema = ApiAutoSchema()
    pagination_class: type[BasePagination] = CataloguePagination
    parser_classes = [StrictJSONParser]


def _current_storage_prices() -> QuerySet[StoragePrice]:
    """The latest StoragePrice per (platform, kind), for a prefetch."""
    return (
        StoragePrice.objects.latest_per_kind().select_related("platform", "source").order_by("kind")
    )


class PlatformViewSet(CatalogueViewSet[Platform]):
    """GPU rental platforms; one platform adds its comparison facts (with sources) and storage."""

    lookup_field = "slug"

    def get_queryset(self) -> QuerySet[Platform]:
        # A Count groups rows, and grouped queries ignore Meta.ordering: order explicitly.
        platforms = (
            Platform.objects.select_related("source__speaker")
            .annotate(offering_count=Count("offerings", filter=Q(offerings__is_active=True)))
            .order_by("name_en", "name", "pk")
        )
        if self.action == "retrieve":
            platforms = platforms.prefetch_related(
                Prefetch("facts", queryset=PlatformFact.objects.select_related("source__speaker")),
                Prefetch(
                    "storage_prices",
                    queryset=_current_storage_prices(),
                    to_attr="current_storage_prices",
                ),
            )
        return platforms

    def get_serializer_class(self) -> type[BaseSerializer[Platform]]:
        return PlatformDetailSerializer if self.action == "retrieve" else PlatformSerializer


class AcceleratorViewSet(CatalogueViewSet[Accelerator]):
    """GPU models with their figures (each graded for confidence), aliases and MIG profiles."""

    lookup_field = "slug"
    serializer_class = AcceleratorSerializer
    queryset = Accelerator.objects.select_related("source__speaker").prefetch_related(
        Prefetch("aliases", queryset=AcceleratorAlias.objects.order_by("alias")),
        Prefetch("mig_profiles", queryset=MigProfile.objects.all()),
    )


@extend_schema_view(
    list=extend_schema(parameters=[OfferingQuerySerializer]),
    retrieve=extend_schema(parameters=[OfferingUnitSerializer]),
)
class OfferingViewSet(CatalogueViewSet[Offering]):
    """Listed instance types with their current prices; filter and order the list with the query.

    Each offering's `price` is its current price in the asked billing unit (`unit`, default hour);
    `current_prices` are its current prices in every unit it has.
    """

    serializer_class = OfferingSerializer
    # Keyset pages: an index finds any page at the cost of the first (api/pagination.py).
    pagination_class = OfferingCursorPagination
    list_order = offering_order(None)

    def get_queryset(self) -> QuerySet[Offering]:
        if self.action in ("prices", "add_price"):
            # History stays readable (and writable) for offerings no longer listed.
            return Offering.objects.all()
        # The list takes every filter; a single offering only the unit of its listed price.
        serializer = OfferingQuerySerializer if self.action == "list" else OfferingUnitSerializer
        if self.action == "list":
            unknown_parameters(self.request.query_params, list(serializer().fields))
        query = serializer(data=query_data(self.request.query_params, many=serializer.MANY))
        query.is_valid(raise_exception=True)
        unit = query.validated_data.get("unit", DEFAULT_UNIT)
        listed = offerings_listed() if self.action == "list" else Offering.objects.for_catalog()
        offerings = offerings_annotated(listed, unit).order_by(
            *cast(list[str], Offering._meta.ordering),
            "pk",  # Offering.Meta.ordering: field names
        )
        if self.action == "list":
            offerings = filter_offerings(offerings, query.validated_data)
            self.list_order = offering_order(query.validated_data.get("ordering"))
        return offerings

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        # ListModelMixin.list, with the page's relations and current prices attached once the
        # page is known (api/filters.py: listed_page_attach).
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        assert page is not None  # OfferingCursorPagination pages every list
        listed_page_attach(page)
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    # `builtins.list`: in this class, `list` is the action above.
    def get_permissions(self) -> builtins.list[BasePermission]:
        if self.action == "add_price":
            # As in the admin: staff with platforms.add_priceobservation.
            return [AdminModelPermissions(PriceObservation)]
        return [AllowAny()]

    @extend_schema(
        parameters=[CompareQuerySerializer],
        responses=OfferingComparisonSerializer,
        operation_id="offerings_compare",
        summary="Two to four offerings side by side",
        description="Specs, every current price per unit and per GPU-hour in `currency`, the "
        "platform's storage prices and billing rules, sources and ages; with `scenario` (JSON), "
        "each offering's fit, cost, time and placement for it. An id that is not a listed "
        "offering is a 400 naming it.",
    )
    @action(detail=False, methods=["get"], pagination_class=None)
    def compare(self, request: Request) -> Response:
        query = CompareQuerySerializer(
            data=query_data(request.query_params, many=CompareQuerySerializer.MANY)
        )
        query.is_valid(raise_exception=True)
        data = query.validated_data
        ids = list(dict.fromkeys(data["ids"]))
        now = timezone.now()
        try:
            result = compare_offerings(ids, data.get("currency") or Currency.CNY, now=now)
        except CompareError as error:
            raise exceptions.ValidationError({"ids": [str(error)]}) from error
        context: dict[str, Any] = {}
        if data.get("scenario") is not None:
            _scenario, context["fits"] = scenario_on_offerings(data["scenario"], ids, now=now)
        body = {"currency": result.conversion.display, "offerings": result.offerings}
        return Response(OfferingComparisonSerializer(body, context=context).data)

    @extend_schema(
        parameters=[PriceHistoryQuerySerializer],
        responses=PriceHistorySerializer,
        operation_id="offerings_price_history",
        summary="Price history of an offering, aggregated per day, week or month",
        description="Min, max, mean and number of the observed prices in each bucket, per "
        "billing unit and currency, aggregated in the database. Buckets follow the site's time "
        "zone; weeks start on Monday.",
    )
    @action(detail=True, methods=["get"], pagination_class=None)
    def prices(self, request: Request, pk: str | None = None) -> Response:
        query = PriceHistoryQuerySerializer(data=query_data(request.query_params))
        query.is_valid(raise_exception=True)
        offering = self.get_object()
        buckets = price_history(offering, **query.validated_data)
        history = {
            "offering": offering.pk,
            "unit": query.validated_data.get("unit"),
            "bucket": query.validated_data["bucket"],
            "date_from": query.validated_data.get("date_from"),
            "date_to": query.validated_data.get("date_to"),
            "buckets": buckets,
        }
        return Response(PriceHistorySerializer(history).data)

    @extend_schema(
        request=PriceObservationCreateSerializer,
        responses={201: PriceObservationSerializer},
        operation_id="offerings_add_price",
        summary="Add an observed price (staff with the permission to add prices)",
        description="Appends to the offering's price history; the history is never rewritten. "
        "A second price for the same offering, unit and `observed_at` is a 400.",
    )
    @prices.mapping.post
    def add_price(self, request: Request, pk: str | None = None) -> Response:
        offering = self.get_object()
        body = PriceObservationCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        try:
            observation = price_observation_create(
                offering=offering,
                unit=data["unit"],
                amount=data["amount"],
                currency=data["currency"],
                tier=data.get("tier", "list"),
                basis=data.get("basis", "offer"),
                source=data.get("source") or manual_source(),
                observed_at=data.get("observed_at"),
                # AdminModelPermissions: the user is logged-in staff.
                created_by=cast("User", request.user),
            )
        except DjangoValidationError as error:
            raise exceptions.ValidationError(_price_errors(error)) from error
        except IntegrityError as error:
            # Two writers passed full_clean() at once; the database constraint caught the second.
            raise exceptions.ValidationError({"observed_at": [PRICE_CLASH]}) from error
        return Response(
            PriceObservationSerializer(observation, context=self.get_serializer_context()).data,
            status=status.HTTP_201_CREATED,
        )


class StoragePriceViewSet(CatalogueViewSet[StoragePrice]):
    """Every recorded storage price (system disk, data disk, shared storage), newest first."""

    serializer_class = StoragePriceSerializer
    queryset = StoragePrice.objects.select_related("platform", "source").order_by(
        "platform__slug", "kind", "-observed_at", "pk"
    )


class ExchangeRateViewSet(CatalogueViewSet[ExchangeRate]):
    """Exchange rates used to compare CNY and USD prices, newest first."""

    serializer_class = ExchangeRateSerializer
    queryset = ExchangeRate.objects.select_related("source").order_by("-as_of", "base", "quote")


class AdvisorView(APIView):
    """Base of the advisor actions: POST a scenario (JSON), get the engine's answer."""

    schema = ApiAutoSchema()
    parser_classes = [StrictJSONParser]
    permission_classes = [AllowAny]

    def scenario(self, request: Request) -> dict[str, Any]:
        body = ScenarioSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        # The engine reads the scenario as sent: it knows every field, the serializer the shape
        # (a JSON object, so a dict).
        return cast(dict[str, Any], request.data)


class EstimateView(AdvisorView):
    @extend_schema(
        operation_id="estimate",
        summary="Memory per GPU (and, with `on`, fit, time and decode speed) of each task",
        description="No catalogue and no prices: what each task needs. A field the engine rejects "
        "is a 400 whose `fields` names it (e.g. `tasks[0].precision`).",
        request=ScenarioSerializer,
        responses=EstimateSerializer,
        examples=[examples.ESTIMATE_REQUEST, examples.ESTIMATE_RESPONSE, examples.INVALID_FIELD],
    )
    def post(self, request: Request) -> Response:
        return Response(EstimateSerializer(estimate_scenario(self.scenario(request))).data)


class AdviseView(AdvisorView):
    @extend_schema(
        operation_id="advise",
        summary="Ranked offerings that can run a scenario, with costs, times and reasons",
        description="A 422 (`code` `no_fit`) says why nothing in the catalogue can run the "
        "scenario; a 400 names the field the engine rejected.",
        request=ScenarioSerializer,
        responses={
            200: AdviceReportSerializer,
            422: OpenApiResponse(
                ErrorSerializer,
                description="Nothing in the catalogue fits: the closest miss, and the changes "
                "that would fit as scenarios ready to post again.",
            ),
        },
        examples=[
            examples.ADVISE_REQUEST,
            examples.ADVISE_RESPONSE,
            examples.INVALID_FIELD,
            examples.NO_FIT,
        ],
    )
    def post(self, request: Request) -> Response:
        report = advise_scenario(self.scenario(request))
        if report.no_fit is not None:
            return Response(no_fit_body(report), status=status.HTTP_422_UNPROCESSABLE_ENTITY)
        return Response(advice_report_json(report))


PRESET_CACHE_SECONDS = 3600


def preset_body(preset: presets.Preset) -> dict[str, Any]:
    """A preset with its checks and verdict on the catalogue as it stands, in the active
    language; kept in the cache per catalogue version, language and day (the day: prices turn
    stale by the calendar)."""
    key = ":".join(
        (
            "preset",
            preset.slug,
            get_language() or "",
            str(catalogue_version()),
            str(timezone.now().date()),
        )
    )
    body = cache.get(key)
    if body is None:
        report = advise_scenario(preset.named_scenario())
        body = dict(PresetSerializer(PresetItem(preset, report)).data)
        cache.set(key, body, PRESET_CACHE_SECONDS)
    return cast(dict[str, Any], body)


@extend_schema_view(
    list=extend_schema(
        summary="The seed article's scenarios, each with its claim and the product's verdict",
        responses=PresetSerializer(many=True),
    ),
    retrieve=extend_schema(
        summary="One scenario of the seed article: its claim, checks and verdict",
        responses=PresetSerializer,
    ),
)
class PresetViewSet(viewsets.ViewSet):
    """Presets: the seed article's scenarios (advisor/presets.py). Each is a scenario ready to
    post to advise, the article's claim and pick, and what the catalogue says of them today."""

    schema = ApiAutoSchema()
    permission_classes = [AllowAny]
    lookup_field = "id"
    lookup_value_regex = "[a-z0-9.-]+"

    def list(self, request: Request) -> Response:
        return Response([preset_body(p) for p in presets.PRESETS.values()])

    def retrieve(self, request: Request, id: str | None = None) -> Response:
        preset = presets.PRESETS.get(id or "")
        if preset is None:
            raise exceptions.NotFound()
        return Response(preset_body(preset))


class NotFoundView(APIView):
    """Any other path under /api/v1/: a 404 in the API's error shape, not Django's HTML page."""

    schema = None  # not an endpoint: left out of the OpenAPI schema
    permission_classes = [AllowAny]

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)
        raise exceptions.NotFound()
