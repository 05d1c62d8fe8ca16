"""Choosing GPUs as nvitop's ``select_devices``/``nvisel`` does, and CUDA's
ordinals as nvitop's ``Device.cuda`` maps them, from jetsond's readings
(docs/nvidia-gpus.md). Reads only: any user may call it.

The pure functions (select_from, cuda_from) take the list ``Jetson.gpus()``
gives (views.gpus with each GPU's DiscreteGpu properties: ``uuid``,
``pci_bus_id``); select_devices and cuda_devices at the end read it from
jetsond first."""

import os
import re
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Union

Size = Union[int, str]

_UNITS = {"": 1, "K": 1024, "M": 1024 ** 2, "G": 1024 ** 3, "T": 1024 ** 4}


def parse_size(size: Size) -> int:
    """Bytes of SIZE: an int (bytes) or "5GiB", "5000M", "8G", "512" (K, M,
    G, T powers of 1024, with or without "iB"/"B", as jetsonctl's sizes)."""
    if isinstance(size, int):
        return size
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(?:I?B)?\s*", size.upper())
    if not m:
        raise ValueError("not a size: %r (examples: 4GiB, 5000M, 1073741824)" % size)
    return int(float(m.group(1)) * _UNITS[m.group(2)])


def candidates(gpus: Sequence[Mapping[str, Any]]) -> List[Dict[str, Any]]:
    """The devices a CUDA program could be given: each discrete GPU, or,
    for a GPU with MIG on, each of its MIG devices instead (as CUDA shows
    them). Each as {"index", "mig" (slot or None), "uuid", "pci_bus_id",
    "mem_used_kib", "mem_total_kib", "load_percent", "mem_load_percent"}."""
    out = []  # type: List[Dict[str, Any]]
    for g in gpus:
        if g.get("integrated"):
            continue
        base = {"index": g["index"], "pci_bus_id": g.get("pci_bus_id")}
        if g.get("mig"):
            for m in g["mig"]:
                out.append(dict(base, mig=m["slot"], gpu_instance=m.get("gpu_instance"), uuid=m.get("uuid"),
                                mem_used_kib=m.get("mem_used_kib"),
                                mem_total_kib=m.get("mem_total_kib"), load_percent=m.get("load_percent"),
                                mem_load_percent=None))
        else:
            out.append(dict(base, mig=None, uuid=g.get("uuid"), mem_used_kib=g.get("mem_used_kib"),
                            mem_total_kib=g.get("mem_total_kib"), load_percent=g.get("load_percent"),
                            mem_load_percent=g.get("mem_load_percent")))
    return out


def _matches(entry: str, dev: Mapping[str, Any], position: int) -> bool:
    if entry.isdigit():
        return int(entry) == position
    uuid = dev.get("uuid") or ""
    return bool(entry) and uuid.startswith(entry)


def cuda_from(gpus: Sequence[Mapping[str, Any]], visible: Optional[str] = None,
                 order: Optional[str] = None) -> List[Dict[str, Any]]:
    """The devices a CUDA program sees, by CUDA ordinal: each a candidate
    (above) with "cuda_index". VISIBLE is CUDA_VISIBLE_DEVICES (None: unset,
    every device), a comma-separated list of ordinals or UUIDs (a UUID's
    prefix is enough, as CUDA allows); as CUDA does, the list stops at the
    first entry that names no device, and a device named twice is dropped.
    ORDER is CUDA_DEVICE_ORDER: "PCI_BUS_ID" orders by PCI bus id;
    "FASTEST_FIRST" (CUDA's default) is ordered the same here, which is
    CUDA's order for GPUs of one model (docs/nvidia-gpus.md: without CUDA,
    jetsond cannot rank different models as CUDA does)."""
    devs = candidates(gpus)
    devs.sort(key=lambda d: (d.get("pci_bus_id") or "", d["index"], -1 if d["mig"] is None else d["mig"]))
    if visible is not None:
        picked = []  # type: List[Dict[str, Any]]
        for entry in (e.strip() for e in visible.split(",")):
            found = [d for i, d in enumerate(devs) if _matches(entry, d, i)]
            if len(found) != 1 or found[0] in picked:
                break
            picked.append(found[0])
        devs = picked
    return [dict(d, cuda_index=i) for i, d in enumerate(devs)]


def _users_kib(d: Mapping[str, Any], processes: Sequence[Mapping[str, Any]], users: Iterable[str]) -> int:
    """GPU memory (KiB) USERS' processes hold on device D (a MIG device:
    those in its GPU instance)."""
    wanted = set(users)
    total = 0
    for p in processes:
        on = p.get("dgpu", {}).get(d["index"]) if p.get("user") in wanted else None
        if not on or "mem_kib" not in on:
            continue
        if d["mig"] is not None and on.get("gpu_instance") != d.get("gpu_instance"):
            continue
        total += int(on["mem_kib"])
    return total


def select_from(gpus: Sequence[Mapping[str, Any]], format: str = "index", min_count: int = 0,
                max_count: Optional[int] = None, min_free_memory: Optional[Size] = None,
                min_total_memory: Optional[Size] = None, max_gpu_utilization: Optional[float] = None,
                max_memory_utilization: Optional[float] = None, tolerance: float = 0,
                sort: bool = True, inherit: Optional[str] = None, account_as_free: Optional[Iterable[str]] = None,
                processes: Sequence[Mapping[str, Any]] = ()) -> List[Union[int, str]]:
    """GPUs that meet every constraint, as nvitop's select_devices: their
    NVML index (FORMAT "index") or UUID ("uuid"; with a MIG device among
    them, UUIDs whatever FORMAT says, as nvitop does). Sorted by memory in
    use, then utilization, unless SORT is false; at most MAX_COUNT; [] if
    fewer than MIN_COUNT qualify. Sizes take parse_size's forms;
    utilizations are percents; TOLERANCE (percent) loosens each limit.
    INHERIT: choose among the devices of a CUDA_VISIBLE_DEVICES value only.
    A reading the GPU does not give (a MIG device's utilization) does not
    exclude it. ACCOUNT_AS_FREE: user names whose processes' GPU memory
    (PROCESSES, as Jetson.processes() lists them) counts as free."""
    if format not in ("index", "uuid"):
        raise ValueError("format is 'index' or 'uuid', not %r" % format)
    devs = cuda_from(gpus, inherit) if inherit is not None else candidates(gpus)
    if account_as_free is not None:
        users = list(account_as_free)
        for d in devs:
            if d.get("mem_used_kib") is not None:
                d["mem_used_kib"] = max(0, d["mem_used_kib"] - _users_kib(d, processes, users))
    loose = 1.0 + tolerance / 100.0
    kib = 1024.0

    def fits(d: Mapping[str, Any]) -> bool:
        used, total = d.get("mem_used_kib"), d.get("mem_total_kib")
        if min_free_memory is not None:
            if used is None or total is None or (total - used) * kib < parse_size(min_free_memory) / loose:
                return False
        if min_total_memory is not None:
            if total is None or total * kib < parse_size(min_total_memory) / loose:
                return False
        load, mem_load = d.get("load_percent"), d.get("mem_load_percent")
        if max_gpu_utilization is not None and load is not None and load > max_gpu_utilization * loose:
            return False
        if max_memory_utilization is not None and mem_load is not None and mem_load > max_memory_utilization * loose:
            return False
        return True

    chosen = [d for d in devs if fits(d)]
    if sort:
        chosen.sort(key=lambda d: (d.get("mem_used_kib") or 0, d.get("load_percent") or 0, d["index"]))
    if max_count is not None:
        chosen = chosen[:max_count]
    if len(chosen) < min_count:
        return []
    if format == "uuid" or any(d["mig"] is not None for d in chosen):
        return [str(d["uuid"]) for d in chosen]
    return [int(d["index"]) for d in chosen]


def _gpus(jetson: Any) -> List[Dict[str, Any]]:
    if jetson is not None:
        return list(jetson.gpus())
    from .client import Jetson  # here: the pure functions need no bus
    with Jetson() as j:
        return list(j.gpus())


def select_devices(jetson: Any = None, **constraints: Any) -> List[Union[int, str]]:
    """select_from on jetsond's current readings (a Jetson, or a connection
    of its own): ``jetsond.select_devices(format="uuid", min_count=2,
    min_free_memory="8GiB")``, as nvitop's; with account_as_free, the
    processes' memory from the same connection."""
    if constraints.get("account_as_free") is None:
        return select_from(_gpus(jetson), **constraints)
    if jetson is not None:
        return select_from(jetson.gpus(), processes=jetson.processes(), **constraints)
    from .client import Jetson
    with Jetson() as j:
        return select_from(j.gpus(), processes=j.processes(), **constraints)


def cuda_devices(jetson: Any = None, visible: Optional[str] = None,
                 order: Optional[str] = None) -> List[Dict[str, Any]]:
    """cuda_from on jetsond's current readings, VISIBLE and ORDER from the
    environment's CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER when not
    given: what this process's CUDA would number 0, 1, ..."""
    if visible is None:
        visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if order is None:
        order = os.environ.get("CUDA_DEVICE_ORDER")
    return cuda_from(_gpus(jetson), visible, order)
