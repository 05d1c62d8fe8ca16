"""jetsond: NVIDIA Jetson boards from Python, through the jetsond D-Bus
service. See docs/python.md."""

from .capture import AsyncRecorder, Recorder, load_trace, read_trace
from .aio import AsyncJetson
from .client import Jetson, Sample, Subscription
from .collector import Collector, collect_in_background, sample_metrics
from .errors import (AccessDenied, Busy, Failed, InteractiveAuthorizationRequired, InvalidArgs, JetsondError,
                     NoSuchGpu, NotFound, NotRunning, NotSupported, ReadOnly, RebootRequired, Timeout, UnknownProcess)
from .measure import Measurement, measure, trace_energy_j
from .netif import local_interfaces
from .select import cuda_devices, cuda_from, parse_size, select_devices, select_from
from .tiers import tier_of, trace_readings, trace_stats

__version__ = "0.1.0"

__all__ = ["Jetson", "AsyncJetson", "Sample", "Subscription", "Recorder", "AsyncRecorder", "read_trace", "load_trace", "measure", "Measurement",
           "trace_readings", "trace_stats", "tier_of",
           "trace_energy_j", "Collector", "collect_in_background", "sample_metrics", "local_interfaces", "select_devices", "select_from", "cuda_devices", "cuda_from", "parse_size",
           "JetsondError", "NotRunning", "AccessDenied", "InteractiveAuthorizationRequired", "NotSupported",
           "Busy", "Failed", "Timeout", "RebootRequired", "InvalidArgs", "NotFound", "UnknownProcess",
           "ReadOnly", "NoSuchGpu"]
