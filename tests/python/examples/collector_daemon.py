"""nvitop's background collector on jetsond (docs/python.md "Collector"):
Collector.daemonize() collects in a thread of its own every INTERVAL
seconds; on_collect logs each period's mean/min/max to TensorBoard where
torch's SummaryWriter is installed, and keeps them for a CSV file where not;
returning False stops the thread, and on_stop runs once at the end.

    python3 collector_daemon.py [CSV-FILE] [PERIODS]
"""
import csv
import sys
from typing import Any, Dict, List

import jetsond

path = sys.argv[1] if len(sys.argv) > 1 else "resources.csv"
periods = int(sys.argv[2]) if len(sys.argv) > 2 else 3

try:
    from torch.utils.tensorboard import SummaryWriter
    writer = SummaryWriter()  # type: Any
except ImportError:
    writer = None

rows = []  # type: List[Dict[str, float]]


def on_collect(metrics: Dict[str, float]) -> bool:  # every period
    if writer is not None:
        for name, value in metrics.items():
            writer.add_scalar(name, value, global_step=len(rows))
    rows.append(metrics)
    return len(rows) < periods  # False: stop


def on_stop(collector: jetsond.Collector) -> None:  # once, at the end
    collector.stop()
    if writer is not None:
        writer.close()


collector = jetsond.Collector(interval=0.1)
daemon = collector.daemonize(on_collect, interval=0.5, on_stop=on_stop, tag="resources")
daemon.join()

if writer is None:
    names = sorted({k for r in rows for k in r})
    with open(path, "w", newline="") as f:
        out = csv.DictWriter(f, fieldnames=names)
        out.writeheader()
        out.writerows(rows)
    print("%d periods, %d columns to %s" % (len(rows), len(names), path))
else:
    print("%d periods to TensorBoard" % len(rows))
for pid, command in collector.commands().items():
    print("pid %d: %s" % (pid, command))
