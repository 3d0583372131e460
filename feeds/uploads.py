"""An import job's file, kept server-side between the preview and the confirmation: streamed from
the upload into the database in chunks of CHUNK_BYTES, and read back by the importer as a text
stream, chunk by chunk. The file is never whole in memory, and any web or worker process can read
it (a file on one machine's disk could not be read by a worker on another).
"""

from __future__ import annotations

import codecs
import io
from collections.abc import Iterable
from typing import TextIO

from .models import ImportJob, ImportJobChunk

# One row per MiB: a 20 MB file is 20 rows, each read with one query.
CHUNK_BYTES = 1024 * 1024


class FileRefused(ValueError):
    """The upload is not one the import takes; `code` says why ("too_large", "not_utf8")."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


def job_file_save(job: ImportJob, pieces: Iterable[bytes], *, max_bytes: int) -> int:
    """Store the file (`pieces`: its bytes in order, e.g. UploadedFile.chunks()) as the job's
    chunks; returns its size. Raises FileRefused past `max_bytes` or for text that is not UTF-8
    (checked as it streams in, so a refusal is known before the file is checked)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    pending = bytearray()
    size = index = 0

    def store(data: bytes) -> None:
        nonlocal index
        ImportJobChunk.objects.create(job=job, index=index, data=data)
        index += 1

    try:
        for piece in pieces:
            size += len(piece)
            if size > max_bytes:
                raise FileRefused("too_large")
            decoder.decode(piece)
            pending += piece
            while len(pending) >= CHUNK_BYTES:
                store(bytes(pending[:CHUNK_BYTES]))
                del pending[:CHUNK_BYTES]
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        raise FileRefused("not_utf8") from None
    if pending:
        store(bytes(pending))
    return size


def job_file_drop(job: ImportJob) -> None:
    ImportJobChunk.objects.filter(job=job).delete()


class _Chunks(io.RawIOBase):
    """The job's chunks as one stream of bytes, one chunk in memory at a time. It can go back to
    its start (the importer reads a file twice), and nowhere else."""

    def __init__(self, job_id: int) -> None:
        self.job_id = job_id
        self.index = 0
        self.chunk = b""
        self.offset = 0
        self.position = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        target = offset if whence == io.SEEK_SET else self.position + offset
        if whence not in (io.SEEK_SET, io.SEEK_CUR) or target not in (0, self.position):
            raise io.UnsupportedOperation("an import file can only go back to its start")
        if target == 0:
            self.index, self.chunk, self.offset, self.position = 0, b"", 0, 0
        return self.position

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        while self.offset >= len(self.chunk):
            data = (
                ImportJobChunk.objects.filter(job_id=self.job_id, index=self.index)
                .values_list("data", flat=True)
                .first()
            )
            if data is None:
                return 0
            self.chunk, self.offset, self.index = bytes(data), 0, self.index + 1
        n = min(len(buffer), len(self.chunk) - self.offset)
        buffer[:n] = self.chunk[self.offset : self.offset + n]
        self.offset += n
        self.position += n
        return n


def job_file_open(job: ImportJob) -> TextIO:
    """The job's file as text (UTF-8, a byte-order mark dropped), lines as written: what the
    importer's readers take (platforms.importers.rows.Text). `seek(0)` reads it again from the
    first chunk."""
    return io.TextIOWrapper(
        io.BufferedReader(_Chunks(job.pk), buffer_size=64 * 1024),
        encoding="utf-8-sig",
        newline="",
    )
