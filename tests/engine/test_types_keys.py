"""The stored key format of numbers is a file format: pinned byte for byte.

Databases outlive the code that wrote them. ``encode_number_key`` decides the bytes a number key is
stored and indexed under; if they changed, a database written by an earlier version would no longer
find or order its own keys (an ``sk = :v`` lookup encodes ``:v`` anew and misses). Ordering alone is
checked by the conformance suite; these exact bytes are what mutation testing showed nothing pinned
(trailing zeros, the sign's handling, the byte order of the magnitude).
"""

from __future__ import annotations

import pytest

from tablewright.engine.types import encode_key, encode_number_key

# (canonical number text, its stored key bytes): sign byte (0x00 negative, 0x01 zero, 0x02 positive),
# 2-byte big-endian magnitude biased by 0x8000 (inverted for negatives), mantissa digits without
# trailing zeros (inverted and 0xFF-terminated for negatives).
KEY_BYTES = [
    ("0", b"\x01"),
    ("7", b"\x02\x80\x01" + b"7"),
    ("100", b"\x02\x80\x03" + b"1"),
    ("120", b"\x02\x80\x03" + b"12"),
    ("1200.5", b"\x02\x80\x04" + b"12005"),
    ("0.05", b"\x02\x7f\xff" + b"5"),
    ("0.0500001", b"\x02\x7f\xff" + b"500001"),
    ("0.1", b"\x02\x80\x00" + b"1"),
    ("-5", b"\x00\x7f\xff" + b"4" + b"\xff"),
    ("-100", b"\x00\x7f\xfd" + b"8" + b"\xff"),
    ("-0.05", b"\x00\x80\x01" + b"4" + b"\xff"),
    ("-12.5", b"\x00\x7f\xfe" + b"874" + b"\xff"),
    ("1" + "0" * 125, b"\x02\x80\x7e" + b"1"),  # 1E+125, in the canonical text keys are made from
    ("0." + "0" * 129 + "1", b"\x02\x7f\x7f" + b"1"),  # 1E-130
]


@pytest.mark.parametrize(("text", "stored"), KEY_BYTES, ids=[t[:12] for t, _ in KEY_BYTES])
def test_number_key_bytes_are_stable(text: str, stored: bytes) -> None:
    assert encode_number_key(text) == stored
    assert encode_key({"N": text}) == stored


def test_string_and_binary_key_bytes_are_stable() -> None:
    assert encode_key({"S": "é"}) == "é".encode()
    assert encode_key({"B": "AAH/"}) == b"\x00\x01\xff"
