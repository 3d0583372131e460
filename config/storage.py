"""Static files storage for `make run`: WhiteNoise's compressed, hashed storage, naming files by
their hash with DEBUG on too.

Django's ManifestStaticFilesStorage names files plainly while DEBUG is on, so the development
server would send every page's plotly.js (4.8 MB) unhashed, uncached and uncompressed. Once
collectstatic has written the manifest (`make run` runs it first, as `make serve` does), this
storage names files as in production (`css/site.3f9c2e1a.css`): WhiteNoise serves them from
STATIC_ROOT gzipped, cached for ten years as immutable. A file the manifest does not list yet (a
checkout where collectstatic never ran, a file added since) keeps its plain name, which WhiteNoise
finds in the app folders (WHITENOISE_USE_FINDERS).
"""

from __future__ import annotations

from whitenoise.storage import CompressedManifestStaticFilesStorage


class HashedStaticFilesStorage(CompressedManifestStaticFilesStorage):  # type: ignore[misc]
    def url(self, name: str | None, force: bool = False) -> str:
        listed = bool(name) and self.hash_key(self.clean_name(name or "")) in self.hashed_files
        url: str = super().url(name, force=force or listed)
        return url
