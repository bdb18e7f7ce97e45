"""The API resources the audit reads and the report resources it writes."""

from __future__ import annotations

from msgspec import Struct


class Resource(Struct, frozen=True):
    group: str
    version: str
    plural: str
    kind: str
    namespaced: bool

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}"

    def path(self, namespace: str | None = None, name: str | None = None) -> str:
        """The REST path: the cluster-wide collection, a namespace's collection, or one object."""
        where = f"/namespaces/{namespace}" if namespace is not None else ""
        return f"/apis/{self.group}/{self.version}{where}/{self.plural}" + (f"/{name}" if name else "")


DRA = "resource.k8s.io"
RESOURCE_SLICES = Resource(DRA, "v1", "resourceslices", "ResourceSlice", False)
DEVICE_CLASSES = Resource(DRA, "v1", "deviceclasses", "DeviceClass", False)
RESOURCE_CLAIMS = Resource(DRA, "v1", "resourceclaims", "ResourceClaim", True)
RESOURCE_CLAIM_TEMPLATES = Resource(DRA, "v1", "resourceclaimtemplates", "ResourceClaimTemplate", True)
# Slices first: they are the inventory every selector is checked against.
AUDITED = (RESOURCE_SLICES, DEVICE_CLASSES, RESOURCE_CLAIMS, RESOURCE_CLAIM_TEMPLATES)


class ReportKinds(Struct, frozen=True):
    """A report format's pair of resources: one per namespace, one for cluster-scoped objects."""

    name: str
    namespaced: Resource
    cluster: Resource


OPENREPORTS = ReportKinds("openreports", Resource("openreports.io", "v1alpha1", "reports", "Report", True),
                          Resource("openreports.io", "v1alpha1", "clusterreports", "ClusterReport", False))
WGPOLICY = ReportKinds("wgpolicy", Resource("wgpolicyk8s.io", "v1alpha2", "policyreports", "PolicyReport", True),
                       Resource("wgpolicyk8s.io", "v1alpha2", "clusterpolicyreports", "ClusterPolicyReport", False))
REPORT_KINDS = {k.name: k for k in (OPENREPORTS, WGPOLICY)}
