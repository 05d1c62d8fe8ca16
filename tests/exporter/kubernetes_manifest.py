"""exporter/kubernetes/jetsond-exporter.yaml read as the cluster would
run it: the restrictions it must keep (checked), and the same container
as podman options (scripts/test-container.sh runs them), so that the
manifest and what the test ran cannot drift apart."""

import os

import yaml

MANIFEST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "exporter", "kubernetes",
                        "jetsond-exporter.yaml")
SOCKET = "/run/dbus/system_bus_socket"


def documents(path=MANIFEST):
    with open(path) as f:
        return {d["kind"]: d for d in yaml.safe_load_all(f) if d}


def restrictions(docs):
    """The DaemonSet's pod and container, after checking what an
    unprivileged exporter needs; AssertionError names what is missing."""
    ds = docs["DaemonSet"]
    pod = ds["spec"]["template"]["spec"]
    assert pod.get("nodeSelector"), "no nodeSelector: it would run on every node, Jetson or not"
    assert pod.get("automountServiceAccountToken") is False, "the pod gets a service account token"
    psc = pod.get("securityContext", {})
    assert psc.get("runAsNonRoot") is True and psc.get("runAsUser", 0) != 0, f"not non-root: {psc}"
    (c,) = pod["containers"]
    sc = c.get("securityContext", {})
    assert sc.get("privileged") is not True, "privileged"
    assert sc.get("allowPrivilegeEscalation") is False, "privilege escalation allowed"
    assert sc.get("readOnlyRootFilesystem") is True, "a writable root file system"
    assert sc.get("capabilities", {}).get("drop") == ["ALL"] and not sc["capabilities"].get("add"), \
        f"capabilities {sc.get('capabilities')}"
    (v,) = pod["volumes"]
    assert v["hostPath"] == {"path": SOCKET, "type": "Socket"}, f"a host path other than the bus socket: {v}"
    (m,) = c["volumeMounts"]
    assert m["name"] == v["name"] and m["mountPath"] == SOCKET and m.get("readOnly") is True, f"mount {m}"
    port = c["ports"][0]
    assert c["args"] == ["--listen", ":%d" % port["containerPort"]], f"args {c['args']} vs port {port}"
    svc = docs["Service"]
    assert svc["spec"]["selector"] == ds["spec"]["selector"]["matchLabels"], "the Service selects other pods"
    assert svc["spec"]["ports"][0]["targetPort"] == port["name"]
    mon = docs["ServiceMonitor"]
    assert mon["spec"]["selector"]["matchLabels"] == svc["metadata"]["labels"], "the ServiceMonitor misses the Service"
    for e in mon["spec"]["endpoints"]:
        assert e["port"] == svc["spec"]["ports"][0]["name"], f"an endpoint on another port: {e}"
    return pod, c


def scrape_jobs(docs):
    """{job: metrics path} of the ServiceMonitor's endpoints, as the
    Prometheus Operator would scrape them (the job from the relabeling)."""
    jobs = {}
    for e in docs["ServiceMonitor"]["spec"]["endpoints"]:
        job = [r["replacement"] for r in e.get("relabelings", []) if r.get("targetLabel") == "job"]
        assert len(job) == 1, f"an endpoint without one job: {e}"
        jobs[job[0]] = e.get("path", "/metrics")
    return jobs


def podman_options(pod, c, socket_path, listen):
    """podman run's options for the same container: the user, a read-only
    root, no capabilities, no new privileges, the host's network, the bus
    socket read-only as the only mount; the exporter listening on LISTEN
    instead of the manifest's port (a test's free port)."""
    psc, sc = pod["securityContext"], c["securityContext"]
    opts = ["--user", "%d:%d" % (psc["runAsUser"], psc.get("runAsGroup", psc["runAsUser"]))]
    if sc["readOnlyRootFilesystem"]:
        opts.append("--read-only")
    opts += ["--cap-drop=" + cap for cap in sc["capabilities"]["drop"]]
    if sc["allowPrivilegeEscalation"] is False:
        opts += ["--security-opt", "no-new-privileges"]
    if pod.get("hostNetwork"):
        opts.append("--network=host")
    (m,) = c["volumeMounts"]
    opts += ["-v", "%s:%s%s" % (socket_path, m["mountPath"], ":ro" if m.get("readOnly") else "")]
    args = list(c["args"])
    args[args.index("--listen") + 1] = listen
    return opts, ["jetsond-exporter", *args]
