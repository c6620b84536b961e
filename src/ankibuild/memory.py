"""Keeping a large build's resident memory close to what it holds."""

from __future__ import annotations

import sys

#: glibc's ``mallopt`` parameter for the size from which a block gets its own mapping.
_M_MMAP_THRESHOLD = -3
#: glibc's own starting value of it.
_MMAP_THRESHOLD = 128 * 1024


def give_back_large_blocks() -> None:
    """Have the C allocator return every large block to the system as soon as it is freed.

    glibc raises the size from which a block gets a mapping of its own to that of
    the largest freed (up to 32 MiB): after the first pieces of a megabyte or so
    are freed, the next come from the heap and stay resident there once freed.
    A build handles thousands of such blocks (each file's texts read back from
    the cache, deflated pieces, zip buffers) and kept some 20 MB more at 10,000
    questions. Setting the threshold keeps it fixed, for some 60,000 more page
    faults at 10,000 questions (0.1 to 0.2 s). Elsewhere than on glibc, nothing is done.
    """
    if sys.platform != "linux":
        return
    import ctypes  # loaded only for a build with this much to do

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # a C library without it
        return
    mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD)
