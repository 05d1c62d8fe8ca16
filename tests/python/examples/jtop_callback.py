"""jtop's documented callback form: attach() then loop_for_ever()."""
from jetsond.jtop import jtop

seen = []


def read_stats(jetson):
    seen.append(jetson.stats)
    print("callback", len(seen), jetson.stats["GPU"])
    if len(seen) == 3:
        jetson.close()


jetson = jtop(interval=0.1)
jetson.attach(read_stats)
jetson.loop_for_ever()
assert len(seen) >= 3
