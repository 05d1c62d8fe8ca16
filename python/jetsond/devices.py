"""Some GPUs, as nvitop's ``-o/--only`` and ``--only-visible`` and its
``Device(uuid=...)``, ``Device(bus_id=...)`` lookups: the same rules as
jetsonctl's --only (docs/nvidia-gpus.md). A GPU is named by its NVML index,
its UUID or a start of it that names one GPU alone, its PCI bus id
("00000000:02:00.0" or "02:00.0", any case), or "soc" for a Jetson's own
GPU. Each function takes GPUS as ``Jetson.gpus()`` lists them."""

import os
import re
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Set, Tuple, Union

from .errors import NoSuchGpu

GpuId = Union[int, str]
_BUS = re.compile(r"^(?:([0-9a-fA-F]+):)?([0-9a-fA-F]+):([0-9a-fA-F]+)\.([0-9a-fA-F]+)$")


def _bus_id(text: str) -> Optional[Tuple[Optional[int], int, int, int]]:
    m = _BUS.match(text.strip())
    if not m:
        return None
    return (int(m.group(1), 16) if m.group(1) else None, int(m.group(2), 16), int(m.group(3), 16),
            int(m.group(4), 16))


def _same_bus(want: str, have: Optional[str]) -> bool:
    w, h = _bus_id(want), _bus_id(have or "")
    return w is not None and h is not None and (w[0] is None or w[0] == h[0]) and w[1:] == h[1:]


def _key(g: Mapping[str, Any]) -> GpuId:
    return "soc" if g.get("integrated") else int(g["index"])


def resolve(gpus: Sequence[Mapping[str, Any]], entry: GpuId, what: str = "GPU") -> GpuId:
    """The GPU ENTRY names: its NVML index, or "soc". NoSuchGpu when it
    names none or more than one."""
    text = str(entry).strip()
    if not text:
        raise NoSuchGpu("%s: an empty entry names no GPU" % what)
    if text.lower() == "soc":
        if not any(g.get("integrated") for g in gpus):
            raise NoSuchGpu("%s: \"soc\": this machine has no SoC GPU" % what)
        return "soc"
    if text.isdigit():
        found = [_key(g) for g in gpus if not g.get("integrated") and g["index"] == int(text)]
    else:
        found = [_key(g) for g in gpus
                 if (g.get("uuid") and str(g["uuid"]).startswith(text)) or _same_bus(text, g.get("pci_bus_id"))
                 or any((m.get("uuid") or "").startswith(text) for m in g.get("mig") or ())]
    if len(found) == 1:
        return found[0]
    if found:
        raise NoSuchGpu("%s: \"%s\" names %d GPUs: give more of the UUID" % (what, text, len(found)))
    raise NoSuchGpu("%s: \"%s\" names no GPU (an NVML index, a UUID or its start, a PCI bus id, or soc)"
                    % (what, text))


def visible(gpus: Sequence[Mapping[str, Any]], value: Optional[str]) -> Optional[Set[GpuId]]:
    """The GPUs CUDA_VISIBLE_DEVICES=VALUE gives CUDA (None: unset, every
    GPU): ordinals in PCI bus order (on a Jetson without a discrete GPU, 0
    is the SoC's), UUIDs or their starts, MIG devices' UUIDs (their GPU);
    empty, none. Where CUDA would stop silently at an entry that names
    nothing, NoSuchGpu names it."""
    if value is None:
        return None
    if not value.strip():
        return set()
    discrete = sorted((g for g in gpus if not g.get("integrated")),
                      key=lambda g: (g.get("pci_bus_id") or "", g["index"]))
    soc = any(g.get("integrated") for g in gpus)
    out = set()  # type: Set[GpuId]
    for n, entry in enumerate(value.split(","), 1):
        entry = entry.strip()
        what = "CUDA_VISIBLE_DEVICES=%s, entry %d" % (value, n)
        if entry.isdigit():
            ordinal, count = int(entry), len(discrete) or int(soc)
            if ordinal >= count:
                raise NoSuchGpu("%s: CUDA has no device %s here (%d device%s), and would ignore it and every "
                                "entry after it" % (what, entry, count, "" if count == 1 else "s"))
            out.add(int(discrete[ordinal]["index"]) if discrete else "soc")
        else:
            out.add(resolve(gpus, entry, what))
    return out


def only(gpus: Sequence[Mapping[str, Any]], ids: Optional[Union[GpuId, Iterable[GpuId]]] = None,
         only_visible: bool = False, environ: Optional[Mapping[str, str]] = None) -> List[Dict[str, Any]]:
    """GPUS limited to IDS (one ID, a comma-separated string, or a list of
    IDs; None: all) and, with ONLY_VISIBLE, to those CUDA_VISIBLE_DEVICES
    (of ENVIRON, by default os.environ) gives CUDA: both limits at once."""
    keep = None  # type: Optional[Set[GpuId]]
    if ids is not None:
        entries = []  # type: List[GpuId]
        if isinstance(ids, str):
            entries.extend(ids.split(","))
        elif isinstance(ids, int):
            entries.append(ids)
        else:
            entries.extend(ids)
        keep = {resolve(gpus, e, "only=%r" % (ids,)) for e in entries}
    if only_visible:
        seen = visible(gpus, (os.environ if environ is None else environ).get("CUDA_VISIBLE_DEVICES"))
        if seen is not None:
            keep = seen if keep is None else keep & seen
    return [dict(g) for g in gpus if keep is None or _key(g) in keep]


def find(gpus: Sequence[Mapping[str, Any]], index: Optional[GpuId] = None, uuid: Optional[str] = None,
         bus_id: Optional[str] = None) -> Dict[str, Any]:
    """The one GPU with this INDEX (an NVML index or "soc"), UUID (or a start
    naming one GPU) or BUS_ID, as nvitop's Device(index), Device(uuid=...)
    and Device(bus_id=...); exactly one of them. NoSuchGpu otherwise."""
    given = [(k, v) for k, v in (("index", index), ("uuid", uuid), ("bus_id", bus_id)) if v is not None]
    if len(given) != 1:
        raise TypeError("gpu() takes exactly one of index, uuid and bus_id")
    name, value = given[0]
    if name == "uuid" and (str(value).isdigit() or str(value).lower() == "soc"):
        raise NoSuchGpu("uuid=%r is not a UUID" % (value,))
    if name == "bus_id" and _bus_id(str(value)) is None:
        raise NoSuchGpu("bus_id=%r is not a PCI bus id (00000000:02:00.0 or 02:00.0)" % (value,))
    key = resolve(gpus, value, "%s=%r" % (name, value))
    return next(dict(g) for g in gpus if _key(g) == key)


def processes_on(processes: Sequence[Mapping[str, Any]], gpus: Sequence[Mapping[str, Any]]) -> List[Dict[str, Any]]:
    """The PROCESSES (views.processes) that use one of GPUS: on a discrete
    GPU listed, or on the SoC's when it is listed (memory beyond its
    discrete GPUs', or none on any)."""
    dgpus = {int(g["index"]) for g in gpus if not g.get("integrated")}
    soc = any(g.get("integrated") for g in gpus)
    out = []
    for p in processes:
        on = set(p.get("dgpu") or {})
        own = (p.get("gpu_mem_kib") or 0) - sum((d.get("mem_kib") or 0) for d in (p.get("dgpu") or {}).values())
        if on & dgpus or (soc and (own > 0 or not on)):
            out.append(dict(p))
    return out
