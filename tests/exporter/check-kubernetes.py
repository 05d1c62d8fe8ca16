#!/usr/bin/python3
"""The Kubernetes manifest keeps the exporter unprivileged
(tests/exporter/kubernetes_manifest.py): non-root, read-only root, no
capabilities, no privilege escalation, only the bus socket, a
nodeSelector, Service and ServiceMonitor joined up. Each restriction is
also removed from a copy, one at a time, and must then be refused."""

import copy
import sys

import kubernetes_manifest as km


def main():
    docs = km.documents()
    km.restrictions(docs)
    pod_path = ("DaemonSet", "spec", "template", "spec")
    breaks = {
        "no nodeSelector": lambda p: p.pop("nodeSelector"),
        "root": lambda p: p["securityContext"].update(runAsUser=0, runAsNonRoot=False),
        "writable root": lambda p: p["containers"][0]["securityContext"].update(readOnlyRootFilesystem=False),
        "a capability": lambda p: p["containers"][0]["securityContext"]["capabilities"].update(add=["SYS_ADMIN"]),
        "escalation": lambda p: p["containers"][0]["securityContext"].update(allowPrivilegeEscalation=True),
        "another host path": lambda p: p["volumes"].append({"name": "sys", "hostPath": {"path": "/sys"}}),
        "a writable socket": lambda p: p["containers"][0]["volumeMounts"][0].update(readOnly=False),
    }
    failures = 0
    for what, spoil in breaks.items():
        d = copy.deepcopy(docs)
        pod = d
        for k in pod_path:
            pod = pod[k]
        spoil(pod)
        try:
            km.restrictions(d)
            print(f"FAIL a manifest with {what} passed")
            failures += 1
        except (AssertionError, ValueError, KeyError):
            print(f"ok   refused: {what}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
