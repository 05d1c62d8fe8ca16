"""jtop's documented reading loop; only the import differs from jtop."""
from jetsond.jtop import jtop

with jtop() as jetson:
    count = 0
    while jetson.ok():
        stats = jetson.stats
        print(stats["CPU1"], stats["RAM"], stats["Power TOT"], stats["nvpmodel"], stats["jetson_clocks"])
        count += 1
        if count == 3:
            break
