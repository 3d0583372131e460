"""`manage.py api_token create USERNAME [--days N] | list [USERNAME] | revoke KEY|--user USERNAME`.

API tokens are stored as a SHA-512 digest (django-rest-knox): `create` prints the token once and
nothing can show it again. Each token expires (`--days`, default API_TOKEN_DAYS, 90; `--days 0`
never) and is revoked by deleting it: `revoke` with the key `list` shows (the token's first 15
characters), or every token of a user. The admin lists and deletes them too (Knox: Auth tokens).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone
from knox.models import AuthToken
from knox.settings import knox_settings


class Command(BaseCommand):
    help = "Create, list and revoke API tokens (stored hashed; a token is shown only when created)."

    def add_arguments(self, parser: CommandParser) -> None:
        actions = parser.add_subparsers(dest="action", required=True)
        create = actions.add_parser("create", help="a new token for a user, printed once")
        create.add_argument("username")
        create.add_argument(
            "--days",
            type=int,
            default=None,
            help=f"days until it expires (default {knox_settings.TOKEN_TTL.days}; 0: never)",
        )
        listing = actions.add_parser("list", help="tokens (key, user, created, expiry)")
        listing.add_argument("username", nargs="?")
        revoke = actions.add_parser("revoke", help="delete tokens: by key, or all of a user's")
        revoke.add_argument("key", nargs="?", help="the key `list` shows")
        revoke.add_argument("--user", help="revoke every token of this user")

    def handle(self, *args: Any, **options: Any) -> None:
        action = options["action"]
        if action == "create":
            self._create(options["username"], options["days"])
        elif action == "list":
            self._list(options["username"])
        else:
            self._revoke(options["key"], options["user"])

    def _user(self, username: str) -> Any:
        try:
            return get_user_model().objects.get(username=username)
        except get_user_model().DoesNotExist:
            raise CommandError(f"no user named {username!r}") from None

    def _create(self, username: str, days: int | None) -> None:
        if days is not None and days < 0:
            raise CommandError("--days must be 0 (never expires) or more")
        expiry = knox_settings.TOKEN_TTL if days is None else (timedelta(days=days) or None)
        instance, token = AuthToken.objects.create(user=self._user(username), expiry=expiry)
        self.stdout.write(token)
        until = (
            "never expires"
            if instance.expiry is None
            else f"expires {instance.expiry:%Y-%m-%d %H:%M %Z}"
        )
        self.stderr.write(
            f"key {instance.token_key}, {until}. The token is not stored: copy it now."
        )

    def _list(self, username: str | None) -> None:
        tokens = AuthToken.objects.select_related("user").order_by("user__username", "created")
        if username:
            tokens = tokens.filter(user=self._user(username))
        now = timezone.now()
        for token in tokens:
            if token.expiry is None:
                state = "never expires"
            elif token.expiry < now:
                state = "EXPIRED"
            else:
                state = f"expires {token.expiry:%Y-%m-%d}"
            self.stdout.write(
                f"{token.token_key}  {token.user.get_username()}  "
                f"created {token.created:%Y-%m-%d}  {state}"
            )

    def _revoke(self, key: str | None, username: str | None) -> None:
        if bool(key) == bool(username):
            raise CommandError("name a key or --user, not both")
        tokens = AuthToken.objects.all()
        tokens = (
            tokens.filter(token_key=key) if key else tokens.filter(user=self._user(username or ""))
        )
        count, _ = tokens.delete()
        if key and not count:
            raise CommandError(f"no token with the key {key!r}")
        self.stdout.write(f"revoked {count} token(s)")
