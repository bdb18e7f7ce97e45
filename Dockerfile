# syntax=docker/dockerfile:1
# draguard: the admission webhook image the manifests in deploy/ run.
#   docker build -t registry.example.com/draguard:0.1.0 .
# Two stages: `build` turns the source into a wheel and installs it with its dependencies and its `server` extra
# (Flask, gunicorn, the Kubernetes client, ...) into a virtualenv (then drops the pip and setuptools the venv was
# seeded with);
# the final stage is the slim Python runtime plus that virtualenv, run as a non-root user. Every dependency
# ships binary wheels for linux/amd64 and linux/arm64, so no compiler is needed in either stage.
ARG PYTHON_IMAGE=python:3.11-slim-bookworm

FROM ${PYTHON_IMAGE} AS build
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1
WORKDIR /src
COPY pyproject.toml README.md ./
COPY celext ./celext
COPY certs ./certs
COPY webhook ./webhook
RUN python -m pip wheel --no-deps --wheel-dir /wheels . \
 && python -m venv /opt/draguard \
 && /opt/draguard/bin/pip install /wheels/*.whl \
 && /opt/draguard/bin/pip install "draguard[server]" \
 && /opt/draguard/bin/pip uninstall --yes setuptools pip \
 && /opt/draguard/bin/draguard --help > /dev/null \
 && /opt/draguard/bin/python -c "import celext, certs.issue, certs.reload, kubernetes.client, webhook.app, webhook.serve"

FROM ${PYTHON_IMAGE}
LABEL org.opencontainers.image.title="draguard" \
      org.opencontainers.image.description="Validating admission webhook for Kubernetes DRA NUMA topology" \
      org.opencontainers.image.licenses="Apache-2.0"
# The same numeric ids as runAsUser/runAsGroup in deploy/base, so runAsNonRoot can verify them.
RUN groupadd --system --gid 65532 draguard \
 && useradd --system --uid 65532 --gid 65532 --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin draguard
COPY --from=build /opt/draguard /opt/draguard
ENV PATH=/opt/draguard/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1
USER 65532:65532
EXPOSE 8443 9090
ENTRYPOINT ["draguard", "serve"]
CMD ["--cert-dir=/etc/draguard/tls", "--policy=/etc/draguard/policy/policy.yaml", "--port=8443", \
     "--metrics-port=9090"]
