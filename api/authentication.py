"""API authentication: hashed, expiring, revocable tokens (django-rest-knox), with failed attempts
throttled per client, and the client's address as every throttle and the admin's lockout see it.

DRF authenticates before it throttles, so a bad token used to be answered 401 as often as it was
sent. Here each client (its address) may fail API_AUTH_FAILURE_RATE times (10 a minute by
default); past that, a request presenting a bad token is a 429 with Retry-After until the window
has passed. A valid token is still accepted: bad tokens sent from an address (a shared NAT, a
proxy) must not lock its other clients out, and a knox token (a 64-character random key) is not
something guessing can find. Failures past the limit are not counted again, so the window ends.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.plumbing import build_bearer_security_scheme_object
from knox.auth import TokenAuthentication as KnoxTokenAuthentication
from rest_framework import exceptions
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle, SimpleRateThrottle


def client_address(request: HttpRequest | Request) -> str:
    """The client's address: the connection's, or with NUM_PROXIES trusted proxies in front, the
    address the outermost of them saw (DRF's rule). Used by the throttles and django-axes."""
    return str(BaseThrottle().get_ident(request))  # type: ignore[arg-type]


class AuthFailureThrottle(SimpleRateThrottle):
    """Counts failed authentications per client address (scope "auth_failure")."""

    scope = "auth_failure"
    # Set by SimpleRateThrottle.__init__ from the rate ("10/min": 10 and 60).
    num_requests: int
    duration: int

    def get_cache_key(self, request: Any, view: Any) -> str:
        return self.cache_format % {"scope": self.scope, "ident": client_address(request)}

    def recent(self, request: Any) -> tuple[str, list[float]]:
        key = self.get_cache_key(request, None)
        now = self.timer()
        history = [t for t in self.cache.get(key, []) if t > now - self.duration]
        return key, history

    def blocked_for(self, request: Any) -> float | None:
        """Seconds until this client may try again, or None when it may now."""
        _key, history = self.recent(request)
        if len(history) < self.num_requests:
            return None
        return float(max(1.0, self.duration - (self.timer() - history[-1])))

    def record_failure(self, request: Any) -> None:
        key, history = self.recent(request)
        history.insert(0, self.timer())
        self.cache.set(key, history, self.duration)


class TokenAuthentication(KnoxTokenAuthentication):  # type: ignore[misc]  # knox is untyped
    """`Authorization: Token <token>`, checked against the stored digests; expired tokens are
    refused (and deleted)."""

    def authenticate(self, request: Request) -> Any:
        throttle = AuthFailureThrottle()
        wait = throttle.blocked_for(request) if self._presents_token(request) else None
        try:
            return super().authenticate(request)
        except exceptions.AuthenticationFailed:
            if wait is not None:
                raise exceptions.Throttled(wait=wait) from None
            throttle.record_failure(request)
            raise

    def _presents_token(self, request: Request) -> bool:
        header = request.META.get("HTTP_AUTHORIZATION", "")
        prefix = str(self.authenticate_header(request))
        return bool(header.split(" ", 1)[0].lower() == prefix.lower())


class TokenScheme(OpenApiAuthenticationExtension):
    """The scheme in the OpenAPI schema: `Authorization: Token <token>`, as before."""

    target_class = TokenAuthentication
    name = "tokenAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, Any]:
        return dict(
            build_bearer_security_scheme_object(header_name="Authorization", token_prefix="Token")
        )
