"""Reading and writing PEM material, with every failure turned into one `CertsError` line naming its source."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Literal, TypeAlias

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from cryptography.utils import CryptographyDeprecationWarning

from certs.errors import CertsError

KeyType: TypeAlias = Literal["ecdsa", "rsa"]
PrivateKey: TypeAlias = ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey
AnyPrivateKey: TypeAlias = ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey | ed25519.Ed25519PrivateKey
KEY_TYPES: tuple[KeyType, ...] = ("ecdsa", "rsa")


def read_file(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise CertsError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise CertsError(f"{path}: is a directory, expected a PEM file") from None
    except OSError as err:
        raise CertsError(f"{path}: cannot read: {err.strerror or err}") from None


def parse_certs(data: bytes, source: str) -> list[x509.Certificate]:
    """Every certificate of a PEM bundle, in file order; a bundle without one is an error."""
    if b"-----BEGIN CERTIFICATE-----" not in data:
        raise CertsError(f"{source}: no PEM certificate found")
    try:
        with warnings.catch_warnings():  # a negative serial: goverify reports it in Go's words, not as a warning
            warnings.simplefilter("ignore", CryptographyDeprecationWarning)
            return x509.load_pem_x509_certificates(data)
    except ValueError as err:
        # cryptography's texts are Rust debug output or a FAQ link; say which layer broke instead.
        layer = "the PEM armour or base64" if str(err).startswith("Unable to load PEM") else "the DER inside"
        raise CertsError(f"{source}: not a valid PEM certificate ({layer} does not parse)") from None


def parse_any_key(data: bytes, source: str) -> AnyPrivateKey:
    """A private key a server can serve with: ECDSA, RSA or Ed25519 (cert-manager's three), PKCS#8, PKCS#1 or SEC1,
    other PEM blocks (EC PARAMETERS, a certificate) around it ignored as Go's tls.X509KeyPair and OpenSSL do."""
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except TypeError:
        raise CertsError(f"{source}: the private key is encrypted; draguard needs an unencrypted key") from None
    except ValueError:
        raise CertsError(f"{source}: not a valid PEM private key") from None
    except Exception as err:  # cryptography raises UnsupportedAlgorithm for exotic keys
        raise CertsError(f"{source}: unsupported private key ({err})") from None
    if not isinstance(key, ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey | ed25519.Ed25519PrivateKey):
        raise CertsError(f"{source}: unsupported private key type {type(key).__name__}; use ECDSA, RSA or Ed25519")
    return key


def parse_key(data: bytes, source: str) -> PrivateKey:
    """A key draguard signs with or issues for: ECDSA or RSA."""
    key = parse_any_key(data, source)
    if not isinstance(key, ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey):
        raise CertsError(f"{source}: unsupported private key type {type(key).__name__}; draguard signs and issues "
                         "ECDSA or RSA keys")
    return key


def load_certs(path: Path) -> list[x509.Certificate]:
    return parse_certs(read_file(path), str(path))


def load_key(path: Path) -> PrivateKey:
    return parse_key(read_file(path), str(path))


def public_der(cert_or_key: x509.Certificate | AnyPrivateKey) -> bytes:
    public = cert_or_key.public_key()
    return public.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)


def key_matches(cert: x509.Certificate, key: AnyPrivateKey) -> bool:
    return public_der(cert) == public_der(key)


def key_type_of(cert_or_key: x509.Certificate | PrivateKey) -> str:
    """"ecdsa" or "rsa" for the key types draguard issues; the algorithm name for anything else."""
    public = cert_or_key.public_key()
    if isinstance(public, ec.EllipticCurvePublicKey):
        return "ecdsa"
    if isinstance(public, rsa.RSAPublicKey):
        return "rsa"
    return type(public).__name__


def issued_key_type(cert_or_key: x509.Certificate | PrivateKey, source: str) -> KeyType:
    """The key type to re-issue with; draguard issues only ECDSA and RSA keys."""
    kind = key_type_of(cert_or_key)
    if kind == "ecdsa":
        return "ecdsa"
    if kind == "rsa":
        return "rsa"
    raise CertsError(f"{source}: a {kind} key cannot be re-issued; draguard issues ecdsa or rsa keys")


def cert_pem(certs: x509.Certificate | Sequence[x509.Certificate]) -> bytes:
    many = [certs] if isinstance(certs, x509.Certificate) else list(certs)
    return b"".join(c.public_bytes(serialization.Encoding.PEM) for c in many)


def key_pem(key: PrivateKey) -> bytes:
    # PKCS#8 is read by Go's crypto/tls, OpenSSL and Python's ssl alike, for both key types.
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


def describe(cert: x509.Certificate) -> str:
    """A short human name for a certificate in messages: its subject CN (or whole subject) and serial."""
    cns = cert.subject.get_attributes_for_oid(x509.NameOID.COMMON_NAME)
    name = str(cns[0].value) if cns else cert.subject.rfc4514_string() or "(empty subject)"
    return f"{name!r} (serial {serial_of(cert):x})"


def serial_of(cert: x509.Certificate) -> int:
    """The serial number, without cryptography's warning for one that is not positive (Go's verdict says it)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CryptographyDeprecationWarning)
        return cert.serial_number
