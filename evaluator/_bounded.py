"""Bounded reads from an open descriptor, shared by every reader of evidence.

``os.read(fd, n)`` allocates ``n`` bytes before it reads one, so a read of a
large limit goes in chunks: memory follows what the file holds, not what the
caller allows.
"""

from __future__ import annotations

import os

_CHUNK_BYTES = 1024 * 1024


def read_at_most(descriptor: int, limit: int) -> bytes:
    """Up to ``limit`` bytes from ``descriptor``; fewer only at end of file."""
    chunks: list[bytes] = []
    remaining = limit
    while remaining > 0:
        chunk = os.read(descriptor, min(remaining, _CHUNK_BYTES))
        if not chunk:
            break
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)
