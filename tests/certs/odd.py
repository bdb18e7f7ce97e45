"""Certificates `cryptography`'s builder refuses to make (negative or long serials, SHA-1 and MD5 signatures): build
a normal one, then edit its DER and sign the edited TBSCertificate again."""

from __future__ import annotations

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa

# AlgorithmIdentifier DER for the signature algorithms Go refuses.
SHA1_RSA = bytes.fromhex("300d06092a864886f70d0101050500")
MD5_RSA = bytes.fromhex("300d06092a864886f70d0101040500")
SHA1_ECDSA = bytes.fromhex("300906072a8648ce3d0401")


def _tlv(data: bytes, pos: int) -> int:
    """The end of the TLV starting at `pos`."""
    first = data[pos + 1]
    if first < 0x80:
        return pos + 2 + first
    size = first & 0x7F
    return pos + 2 + size + int.from_bytes(data[pos + 2:pos + 2 + size], "big")


def _header_len(data: bytes, pos: int) -> int:
    first = data[pos + 1]
    return 2 if first < 0x80 else 2 + (first & 0x7F)


def _children(tlv: bytes) -> list[bytes]:
    pos, out = _header_len(tlv, 0), []
    while pos < len(tlv):
        end = _tlv(tlv, pos)
        out.append(tlv[pos:end])
        pos = end
    return out


def _encode(tag: int, content: bytes) -> bytes:
    size = len(content)
    if size < 0x80:
        return bytes([tag, size]) + content
    raw = size.to_bytes((size.bit_length() + 7) // 8, "big")
    return bytes([tag, 0x80 | len(raw)]) + raw + content


def resign(cert: x509.Certificate, key: ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey, *, serial: int | None = None,
           algorithm: bytes | None = None, digest: hashes.HashAlgorithm | None = None) -> x509.Certificate:
    """`cert` with another serial and/or signature algorithm, signed again by `key` (its issuer's key)."""
    tbs, alg, _ = _children(cert.public_bytes(serialization.Encoding.DER))
    fields = _children(tbs)
    if serial is not None:
        size = max(1, (serial.bit_length() + 8) // 8)  # two's complement, with room for the sign bit
        fields[1] = _encode(0x02, serial.to_bytes(size, "big", signed=True))
    if algorithm is not None:
        fields[2] = alg = algorithm
    new_tbs = _encode(0x30, b"".join(fields))
    digest = digest or hashes.SHA256()
    if isinstance(key, rsa.RSAPrivateKey):
        signature = key.sign(new_tbs, padding.PKCS1v15(), digest)
    else:
        signature = key.sign(new_tbs, ec.ECDSA(digest))
    der = _encode(0x30, new_tbs + alg + _encode(0x03, b"\x00" + signature))
    return x509.load_der_x509_certificate(der)
