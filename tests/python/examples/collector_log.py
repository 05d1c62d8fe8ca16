"""A training loop's resource figures with jetsond.Collector (docs/python.md
"Collector"): every "epoch" the mean/min/max of the host, each GPU and each
process, logged to TensorBoard where torch's SummaryWriter is installed and
to a CSV file where not.

    python3 collector_log.py [CSV-FILE] [EPOCHS]
"""
import csv
import sys
import time

import jetsond

path = sys.argv[1] if len(sys.argv) > 1 else "resources.csv"
epochs = int(sys.argv[2]) if len(sys.argv) > 2 else 3

try:
    from torch.utils.tensorboard import SummaryWriter
    writer = SummaryWriter()
except ImportError:
    writer = None

collector = jetsond.Collector(interval=0.1)
rows = []
for epoch in range(epochs):
    with collector(tag="train"):
        time.sleep(0.5)  # the epoch's work
        metrics = collector.collect()
    if writer is not None:
        for name, value in metrics.items():
            writer.add_scalar("resources/" + name, value, global_step=epoch)
    rows.append(dict(metrics, epoch=epoch))
collector.stop()

if writer is None:
    names = sorted({k for r in rows for k in r if k != "epoch"})
    with open(path, "w", newline="") as f:
        out = csv.DictWriter(f, fieldnames=["epoch"] + names)
        out.writeheader()
        out.writerows(rows)
    print("%d epochs, %d columns to %s" % (len(rows), len(names), path))
else:
    writer.close()
    print("%d epochs to TensorBoard" % len(rows))
