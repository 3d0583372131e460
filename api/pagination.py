"""Page-number pagination for catalogue lists: 50 a page (settings.PAGE_SIZE), at most 200."""

from django.utils.translation import gettext_lazy as _
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request


class CataloguePagination(PageNumberPagination):
    page_size_query_param = "page_size"
    # A ceiling keeps one request's cost bounded whatever the client asks for.
    max_page_size = 200

    def get_page_size(self, request: Request) -> int | None:
        # DRF quietly falls back to the default for `page_size=abc`; a client should hear about it.
        given = request.query_params.get(self.page_size_query_param)
        if given is not None and not (given.isascii() and given.isdigit() and int(given) > 0):
            raise ValidationError({self.page_size_query_param: [_("A positive integer.")]})
        return super().get_page_size(request)
