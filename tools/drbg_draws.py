# The hit values a seeded board draws, through the distribution tests of
# `uthctl mystery simulate` (a chi-square over 20 bins and a Kolmogorov-Smirnov
# test, uthctl/analysis/mystery_report.py): the firmware's own draw
# (mystery/hitvalue.py) from its own generator (mystery/drbg.py), reseeded
# before every draw from os.urandom as the board reseeds at each reset, for
# each distinct [minimum, maximum] of the configurations (every family).
# Results: docs/mystery.md, "The lab's tests". A lab run, not `make test`:
#   .venv/bin/python tools/drbg_draws.py [DRAWS]
import json
import os
import sys
import time

import uthctl  # noqa: F401 -- puts the firmware on the path, the micropython shim in
from mystery import configs, drbg, hitvalue
from uthctl.analysis.mystery_report import uniformity


def ranges():
    # {(minimum, maximum): [configuration names]}, in order.
    found = {}
    for name in configs.NAMES:
        config = configs.get(name)
        found.setdefault((config.minimum, config.maximum), []).append(name)
    return found


def draws(minimum, maximum, count):
    generator = drbg.instantiate(os.urandom(32), os.urandom(16), b"lab draws")
    values = []
    for _ in range(count):
        generator.reseed(os.urandom(32))
        values.append(hitvalue.draw(generator.generate, minimum, maximum)[0])
    return values


def main(count):
    for (minimum, maximum), names in ranges().items():
        started = time.time()
        result = uniformity(draws(minimum, maximum, count), minimum, maximum)
        result.pop("counts")
        result.update(configs=names, minimum=minimum, maximum=maximum,
                      seconds=round(time.time() - started, 1))
        print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000)
