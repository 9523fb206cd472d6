#!/usr/bin/env python3
"""Writes the version-1 cache meta golden files (daemon/cache/cached_meta.cc)
from the layout below, not from the C++ encoder, so that the test compares two
independent writings of one format. Run once per format version: files of an
older version are kept as they are, never rewritten to match a new encoder.

Layout, every integer little-endian:
  u8  version (1)        u16 status          u16 flags
  u64 response_time (s since the epoch, two's complement)
  u64 corrected_initial_age (s)              u64 freshness_lifetime (s)
  u64 max_age, s_maxage, stale_while_revalidate, stale_if_error (s; all ones: absent)
  u32 vary length        vary bytes
flags: no-cache 1, no-store 2, private 4, public 8, must-revalidate 16,
proxy-revalidate 32, no-transform 64, must-understand 128, immutable 256,
has-validator 512.
"""
import struct
from pathlib import Path

NONE = 2**64 - 1


def meta(version, status, flags, response_time, initial_age, lifetime, optionals, vary):
    out = struct.pack("<BHHqQQ", version, status, flags, response_time, initial_age, lifetime)
    out += b"".join(struct.pack("<Q", NONE if s is None else s) for s in optionals)
    return out + struct.pack("<I", len(vary)) + vary


here = Path(__file__).parent
fresh = meta(1, 200, 8 | 512, 1_700_000_000, 5, 3600, (3600, None, None, None), b"")
vary = meta(1, 203, 16 | 256, 1_234_567_890, 0, 86_400, (None, 600, 30, 300),
            b"Accept-Encoding, Accept-Language")
edges = meta(1, 404, 1023, -86_400, 2**40, 0, (0, 0, 0, 2**40), b"X")
files = {
    "v1_fresh_validator.meta": fresh,
    "v1_vary_rfc5861.meta": vary,
    "v1_every_flag_edges.meta": edges,
    # Refused, each for one reason:
    "bad_v1_truncated_vary.meta": vary[:-1],
    "bad_v1_truncated_fixed.meta": fresh[:40],
    "bad_v1_trailing_byte.meta": fresh + b"\0",
    "bad_v2_unknown_version.meta": b"\x02" + fresh[1:],
    "bad_v1_time_past_range.meta": fresh[:5] + struct.pack("<q", 2**40 + 1) + fresh[13:],
    "bad_v1_lifetime_negative.meta": fresh[:21] + struct.pack("<q", -1) + fresh[29:],
}
for name, data in files.items():
    (here / name).write_bytes(data)
