"""A JSON parser that turns every malformed body into a 400, including pathological nesting."""

from collections.abc import Mapping
from typing import IO, Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser


class StrictJSONParser(JSONParser):
    """DRF's JSON parser (NaN and Infinity refused), plus RecursionError as a parse error.

    `json.loads` raises RecursionError, not ValueError, for thousands of nested brackets; DRF only
    catches ValueError, so without this a 20 kB body of `[[[[...` is a 500.
    """

    def parse(
        self,
        stream: IO[Any],
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError as error:
            raise ParseError("JSON parse error - nested too deeply.") from error
