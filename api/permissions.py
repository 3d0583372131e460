"""Who may write through the API: the same people the admin lets make the same change.

The admin asks two things of a write: a staff account (its login lets no one else in) and the
model permission for the action (`platforms.add_priceobservation` to add a price). The API asks
the same, so a staff account that the admin refuses everything cannot add prices by token instead.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db.models import Model
from rest_framework.permissions import DjangoModelPermissions

if TYPE_CHECKING:
    from rest_framework.request import Request
    from rest_framework.views import APIView


class AdminModelPermissions(DjangoModelPermissions):
    """Staff with the model permission of the method (POST: add, PUT/PATCH: change, DELETE:
    delete), as Django's admin checks them.

    `model` is the model written where it is not the one the view reads (a price added on an
    offering's URL is a PriceObservation); by default the view's queryset's model. Not signed in
    is a 401 (DRF answers NotAuthenticated to a request no authenticator accepted); signed in
    without the permission, a 403.
    """

    def __init__(self, model: type[Model] | None = None) -> None:
        self.model = model

    def has_permission(self, request: Request, view: APIView) -> bool:
        user = request.user
        if not (user and user.is_authenticated and user.is_active and user.is_staff):
            return False
        model = self.model or self._queryset(view).model
        return user.has_perms(self.get_required_permissions(request.method or "", model))
