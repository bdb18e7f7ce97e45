"""Which cluster, with which credentials: the kubernetes client's `Configuration`, chosen as kubectl chooses it.

Every command that talks to a cluster connects through `configure()` (`draguard certs ...` via `certs.kube`,
`draguard audit` and `draguard lint --cluster` via `webhook.audit.kubeconfig`):

- a kubeconfig wins: `--kubeconfig FILE`, else `$KUBECONFIG` (a path list, merged; missing and empty files
  skipped, a path listed twice read once), else `~/.kube/config` when it exists and is not empty. Merged as
  client-go merges (clientcmd.ClientConfigLoadingRules.Load): the first file to name a cluster, user or
  context wins, and so does the first file to set a `current-context` (the kubernetes client let the last one
  win: `KUBECONFIG=prod:dev` chose dev's context where kubectl chooses prod's). `--context` picks one of its
  contexts.
- the Pod's service account only when there is no kubeconfig at all and no `--context` (kubectl's rule: a
  toolbox Pod with a kubeconfig for another cluster works on that cluster, not its own).
- everything the client would defer or swallow is checked before the first request, each as one line
  (`CertsError`, exit 2): invalid YAML, data fields that are not base64, a file the kubeconfig names that
  cannot be read, a client certificate without its key or with a key that does not match, and an exec
  credential plugin that fails (the client logs that and sends the requests anonymously; kubectl stops).
- a relative file path (`certificate-authority`, `client-certificate`, `client-key`, `tokenFile`, an exec
  `command` with a `/`) is relative to the kubeconfig file that holds it (clientcmd.ResolveLocalPaths; the
  kubernetes client took a user's files relative to the cluster's file). A `tokenFile` is read as client-go reads
  it: trimmed of whitespace, and used instead of a `token` beside it (which stands in when the file cannot be
  read or is empty).
- `insecure-skip-tls-verify` beside a CA is refused, in client-go's words (the kubernetes client skipped the check).
- proxies as client-go chooses them: a kubeconfig `proxy-url` (http, https or socks5) always; else Go's
  `http.ProxyFromEnvironment`: `HTTPS_PROXY` (or `HTTP_PROXY` for an http server; the upper-case name first,
  `ALL_PROXY` never), `http://` when the value has no scheme, none for a loopback server or one `NO_PROXY`
  matches (Go's rules: `*`, an IP or CIDR, `example.com` for it and its subdomains, `.example.com` for
  subdomains only, each with an optional port).
- urllib3 retries nothing and warns about nothing (the callers retry themselves, silently).
"""

from __future__ import annotations

import binascii
import logging
import os
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from certs.errors import CertsError

PROBLEM = "cannot load the Kubernetes configuration"
DATA_FIELDS = {"cluster": ("certificate-authority-data",), "user": ("client-certificate-data", "client-key-data")}


def kubeconfig_paths(kubeconfig: str | None) -> list[str]:
    """The kubeconfig files to merge, empty when there is none (then the Pod's service account may be used)."""
    if kubeconfig is not None:
        if os.path.isdir(kubeconfig):
            raise CertsError(f"{kubeconfig}: is a directory, not a kubeconfig file")
        if not os.path.exists(kubeconfig):
            raise CertsError(f"{kubeconfig}: no such kubeconfig file")
        return [kubeconfig]
    listed = os.environ.get("KUBECONFIG")
    if listed:  # read now: the client reads $KUBECONFIG once, at import
        paths = [os.path.expanduser(p) for p in listed.split(os.pathsep) if p]
        return [p for p in dict.fromkeys(paths) if _not_empty(p)]  # in order, each once (client-go: deduplicate)
    home = os.path.expanduser("~/.kube/config")
    return [home] if _not_empty(home) else []


def _not_empty(path: str) -> bool:
    """A file with content: client-go reads an empty kubeconfig as an empty config (clientcmd.Load), which adds
    nothing to a merge; the kubernetes client refuses it."""
    try:
        return os.path.isfile(path) and os.path.getsize(path) > 0
    except OSError:
        return False


def configure(kubeconfig: str | None = None, context: str | None = None) -> Any:
    """A `kubernetes.client.Configuration` for the chosen cluster, checked as far as it can be offline."""
    from kubernetes import client, config

    configuration = client.Configuration()
    paths = kubeconfig_paths(kubeconfig)
    if not paths:
        if context is not None:
            raise CertsError(f"--context {context}: no kubeconfig file ($KUBECONFIG or ~/.kube/config) to find it "
                                "in")
        if "KUBERNETES_SERVICE_HOST" not in os.environ:
            raise CertsError(f"{PROBLEM}: no kubeconfig ($KUBECONFIG or ~/.kube/config) and not inside a cluster")
        try:
            config.load_incluster_config(client_configuration=configuration)  # type: ignore[no-untyped-call]
        except config.ConfigException as err:
            raise CertsError(f"{PROBLEM}: in-cluster: {err}") from None
        _quiet(configuration, proxy_url=None)
        return configuration
    proxy_url, user = _load(os.pathsep.join(paths), context, configuration)
    if not urlsplit(configuration.host if "://" in (configuration.host or "") else f"//{configuration.host}").hostname:
        # the client would send its first request to an empty host (urllib3: a FutureWarning, `No host specified`)
        raise CertsError(f"{PROBLEM}: the context's cluster has no server (its `server:` is missing or empty)")
    _check_client_certificate(configuration, user)
    _quiet(configuration, proxy_url=proxy_url)
    return configuration


class _ExecFailures(logging.Filter):
    """The client's kube_config module logs (with `logging.error`) what goes wrong in an exec credential plugin,
    then goes on without credentials: catch those records instead of printing them."""

    def __init__(self) -> None:
        super().__init__()
        self.messages: list[str] = []

    def filter(self, record: logging.LogRecord) -> bool:
        if record.module == "kube_config" and record.levelno >= logging.ERROR:
            self.messages.append(record.getMessage())
            return False
        return True


def _load(path: str, context: str | None, configuration: Any) -> tuple[str | None, str]:
    """Load the kubeconfig into `configuration`; its cluster's `proxy-url` (checked), and the user's name."""
    import yaml  # type: ignore[import-untyped]
    from kubernetes.config import kube_config
    from kubernetes.config.config_exception import ConfigException

    failures = _ExecFailures()
    root = logging.getLogger()
    root.addFilter(failures)
    user = "?"
    try:
        merged = kube_config.KubeConfigMerger(path)  # type: ignore[no-untyped-call]
        if merged.config is None:
            raise ConfigException("Invalid kube-config file. No configuration found.")
        _first_current_context(merged)
        _resolve_paths(merged)
        loader: Any = kube_config.KubeConfigLoader(  # type: ignore[no-untyped-call]
            config_dict=merged.config, active_context=context, config_base_path=None)
        user = _name(loader, "user")
        for part, fields in DATA_FIELDS.items():
            node = getattr(loader, f"_{part}", None)
            for name in fields:
                value = node.value.get(name) if node is not None and isinstance(node.value, dict) else None
                if value is not None:
                    try:  # Go's base64.StdEncoding, as client-go decodes []byte fields: only CR and LF are skipped
                        binascii.a2b_base64(re.sub(r"[\r\n]", "", str(value)).encode(), strict_mode=True)
                    except (binascii.Error, ValueError):
                        raise CertsError(f"{PROBLEM}: {part} {_name(loader, part)}: {name} is not base64") from None
        cluster_fields = _fields(loader, "cluster")
        if cluster_fields.get("insecure-skip-tls-verify") is True and (
                cluster_fields.get("certificate-authority") or cluster_fields.get("certificate-authority-data")):
            raise CertsError(f"{PROBLEM}: cluster {_name(loader, 'cluster')}: specifying a root certificates file "
                             "with the insecure flag is not allowed (client-go's rule: drop one of "
                             "insecure-skip-tls-verify and certificate-authority(-data))")
        proxy_url = _proxy_url(cluster_fields.get("proxy-url"), _name(loader, "cluster"))
        _file_token(_fields(loader, "user"), user)
        _default_scheme(loader)
        loader.load_and_set(configuration)
    except ConfigException as err:
        raise CertsError(f"{PROBLEM}: {err}") from None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f"{mark.name}:{mark.line + 1}:{mark.column + 1}: " if mark is not None else ""
        problem = getattr(err, "problem", None) or str(err)
        raise CertsError(f"{PROBLEM}: {where}invalid YAML: {problem}") from None
    except OSError as err:
        raise CertsError(f"{PROBLEM}: user {user}: cannot read {err.filename or path}: "
                            f"{err.strerror or err}") from None
    except (binascii.Error, UnicodeDecodeError) as err:  # a data field the check above let through
        if isinstance(err, UnicodeDecodeError) and user == "?":  # a kubeconfig file itself, before any user was read
            raise CertsError(f"{PROBLEM}: {_not_utf8(path)}: not UTF-8 text") from None
        raise CertsError(f"{PROBLEM}: user {user}: {err}") from None
    except (AttributeError, TypeError, KeyError) as err:  # a field of the wrong shape (a list for a map)
        raise CertsError(f"{PROBLEM}: {path}: not a kubeconfig ({type(err).__name__}: {err})") from None
    finally:
        root.removeFilter(failures)
    if failures.messages:
        message = " ".join(failures.messages[-1].split()).removeprefix("exec: ")
        message = re.sub(r"^\[Errno -?\d+\] (.+): '(.+)'$", r"\2: \1", message)
        raise CertsError(f"{PROBLEM}: user {user}: exec credential plugin failed: {message}")
    return proxy_url, user


def _default_scheme(loader: Any) -> None:
    """Give a bare `server: host[:port]` the scheme client-go's DefaultServerURL gives it: https when the kubeconfig
    sets up TLS (a CA, a client certificate, insecure-skip-tls-verify), else http. The Python client would load no CA
    for it and urllib3 would warn on stderr at every request."""
    cluster, user = (getattr(loader, f"_{part}", None) for part in ("cluster", "user"))
    fields = cluster.value if cluster is not None and isinstance(cluster.value, dict) else {}
    server = fields.get("server")
    if not isinstance(server, str) or not server.strip() or "://" in server:
        return
    credentials = user.value if user is not None and isinstance(user.value, dict) else {}
    tls = (any(key in fields for key in ("certificate-authority", "certificate-authority-data"))
           or fields.get("insecure-skip-tls-verify") is True
           or any(key in credentials for key in ("client-certificate", "client-certificate-data")))
    fields["server"] = ("https://" if tls else "http://") + server


def _not_utf8(paths: str) -> str:
    """The first of the kubeconfig files `paths` (joined as $KUBECONFIG joins them) that is not UTF-8 text."""
    for path in paths.split(os.pathsep):
        try:
            Path(path).read_bytes().decode("utf-8")
        except UnicodeDecodeError:
            return path
        except OSError:  # a missing file of the list: client-go skips it, and so did the merge
            continue
    return paths


def _first_current_context(merged: Any) -> None:
    """The `current-context` of the first file that sets one (not empty), as client-go merges: the kubernetes
    client's merger keeps the last file's."""
    for file in merged.paths:
        config = merged.config_files.get(file)
        current = config.get("current-context") if isinstance(config, dict) else None
        if current:
            merged.config.value["current-context"] = current
            return


def _name(loader: Any, part: str) -> str:
    try:
        return str(loader._current_context["context"][part])
    except Exception:  # only for the message
        return "?"


def _check_client_certificate(configuration: Any, user: str) -> None:
    """A client certificate needs its key and the two must match; urllib3 would only say so at the first
    request, as a network error."""
    import ssl

    cert, key = configuration.cert_file, configuration.key_file
    if not cert and not key:
        return
    if not cert or not key:
        missing = "client-key(-data)" if cert else "client-certificate(-data)"
        raise CertsError(f"{PROBLEM}: user {user}: a client {'certificate' if cert else 'key'} but no {missing}")
    try:
        ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT).load_cert_chain(cert, key)
    except ssl.SSLError as err:
        why = "the client key does not match the client certificate" if "KEY_VALUES_MISMATCH" in str(err) else (
            f"the client certificate or key is not PEM ({err.reason or err})")
        raise CertsError(f"{PROBLEM}: user {user}: {why}") from None


def _fields(loader: Any, part: str) -> dict[str, Any]:
    """The chosen context's `cluster` or `user` map (empty when there is none)."""
    node = getattr(loader, f"_{part}", None)
    return node.value if node is not None and isinstance(node.value, dict) else {}


FILE_FIELDS = {"clusters": ("cluster", ("certificate-authority",)),
               "users": ("user", ("client-certificate", "client-key", "tokenFile"))}


def _resolve_paths(merged: Any) -> None:
    """Make every relative file path absolute against the directory of the kubeconfig file it comes from, as
    client-go's ResolveLocalPaths does (an exec `command` only when it holds a `/`: else it is looked up in PATH)."""
    for item, (part, keys) in FILE_FIELDS.items():
        for node in merged.config.value.get(item) or []:
            entry = getattr(node, "value", None)
            fields = entry.get(part) if isinstance(entry, dict) else None
            if not isinstance(fields, dict) or not getattr(node, "path", None):
                continue
            base = os.path.dirname(os.path.abspath(node.path))
            command = fields.get("exec")
            targets = [(fields, key) for key in keys]
            if isinstance(command, dict) and "/" in str(command.get("command") or ""):
                targets.append((command, "command"))
            for holder, key in targets:
                value = holder.get(key)
                if isinstance(value, str) and value and not os.path.isabs(value):
                    holder[key] = os.path.join(base, value)


def _file_token(user_fields: dict[str, Any], user: str) -> None:
    """Read a `tokenFile` as client-go does: whitespace trimmed (the client sent the newline in the header, which
    urllib3 refused), and preferred to a `token` beside it, which is used only when the file cannot be read or
    holds nothing."""
    path = user_fields.get("tokenFile")
    if not path:
        return
    fallback = user_fields.get("token")
    try:
        token = Path(str(path)).read_text(encoding="utf-8").strip()
    except OSError:
        if not fallback:
            raise  # `cannot read <file>: <why>`, as every file the kubeconfig names
        token = ""
    if not token and not fallback:
        raise CertsError(f"{PROBLEM}: user {user}: tokenFile {path} holds no token")
    user_fields["token"] = token or fallback
    del user_fields["tokenFile"]


PROXY_SCHEMES = ("http", "https", "socks5")


def _proxy_url(value: Any, cluster: str) -> str | None:
    """A kubeconfig `proxy-url`, checked as clientcmd checks it (parseProxyURL)."""
    if value is None or value == "":
        return None
    scheme = urlsplit(str(value)).scheme
    if scheme not in PROXY_SCHEMES:
        raise CertsError(f'{PROBLEM}: invalid \'proxy-url\' "{value}" for cluster "{cluster}": unsupported scheme '
                         f'"{scheme}", must be http, https, or socks5')
    return str(value)


def _env(name: str) -> str:
    """Go's getEnvAny: the upper-case variable, else the lower-case one."""
    return os.environ.get(name) or os.environ.get(name.lower()) or ""


def env_proxy(server: str) -> str | None:
    """The proxy Go's `http.ProxyFromEnvironment` (golang.org/x/net/http/httpproxy) picks for `server`."""
    url = urlsplit(server)
    proxy = _env("HTTPS_PROXY" if url.scheme == "https" else "HTTP_PROXY")
    host = (url.hostname or "").lower()
    if not proxy or not host or _no_proxy(host, url.port or (443 if url.scheme == "https" else 80)):
        return None
    parsed = urlsplit(proxy)
    if not parsed.scheme or not parsed.netloc:  # `proxy.corp:3128`: Go tries it with http:// in front
        proxy = f"http://{proxy}"
    scheme = urlsplit(proxy).scheme
    if scheme not in (*PROXY_SCHEMES, "socks5h"):
        raise CertsError(f'{PROBLEM}: the proxy "{redact(proxy)}" from the environment has the unsupported scheme '
                         f'"{scheme}"')
    return proxy


def _no_proxy(host: str, port: int) -> bool:
    """Whether Go's httpproxy would go direct to host:port: loopback always, else a `NO_PROXY` entry matches."""
    import ipaddress

    try:
        ip: Any = ipaddress.ip_address(host)
    except ValueError:
        ip = None
    if host == "localhost" or (ip is not None and ip.is_loopback):
        return True
    for entry in (e.strip().lower() for e in _env("NO_PROXY").split(",")):
        if not entry:
            continue
        if entry == "*":
            return True
        if "/" in entry:  # a CIDR
            try:
                if ip is not None and ip in ipaddress.ip_network(entry, strict=False):
                    return True
            except ValueError:
                pass
            continue
        split = re.fullmatch(r"\[([^\]]*)\]:(\d*)|([^:\[\]]*):(\d*)", entry)  # Go's net.SplitHostPort
        name, wanted = (entry, "") if not split else (split[1], split[2]) if split[1] is not None else split.group(3, 4)
        if not name or (wanted and wanted != str(port)):
            continue
        try:
            if ip == ipaddress.ip_address(name.strip("[]")):
                return True
            continue  # an IP entry matches that IP only
        except ValueError:
            pass
        name = name[1:] if name.startswith("*.") else name
        if name and (host.endswith(name if name.startswith(".") else f".{name}") or host == name):
            return True
    return False


def redact(url: str) -> str:
    """A proxy URL for messages: without its user and password."""
    parts = urlsplit(url)
    return parts._replace(netloc=parts.netloc.rpartition("@")[2]).geturl()


def _quiet(configuration: Any, *, proxy_url: str | None) -> None:
    import urllib3

    configuration.proxy = proxy_url or env_proxy(configuration.host)  # the setter stops the client's own choice
    configuration.no_proxy = None  # the choice is made: a proxy-url is used whatever NO_PROXY says, as client-go
    if configuration.proxy and urlsplit(configuration.proxy).scheme.startswith("socks"):
        from importlib.util import find_spec

        if find_spec("socks") is None:  # PySocks: what urllib3 speaks SOCKS with
            raise CertsError(f"{PROBLEM}: the proxy {redact(configuration.proxy)} is a SOCKS proxy, which needs "
                             "the PySocks package (pip install pysocks)")
    # No urllib3 retries (each logs a WARNING): the callers (certs.kube, webhook.audit.client) retry what they
    # should, quietly.
    # Redirects are still followed (the Authorization header is dropped for another origin).
    configuration.retries = urllib3.Retry(total=None, connect=0, read=0, other=0, status=0, redirect=10)
    if not configuration.verify_ssl:  # asked for in the kubeconfig: kubectl does not warn on every request
        urllib3.disable_warnings(urllib3.exceptions.InsecureRequestWarning)
