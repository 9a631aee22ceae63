# A tqdm bar on stderr for long host work, called as progress(done, total);
# it stays hidden for work that ends within a second.
import sys

from tqdm import tqdm


class Progress:
    def __init__(self, label, unit="it"):
        self.bar = None
        self.label = label
        self.unit = unit

    def __call__(self, done, total):
        if self.bar is None:
            self.bar = tqdm(total=total, desc=self.label, file=sys.stderr, leave=False,
                            delay=1.0, unit=self.unit, unit_scale=True)
        self.bar.update(done - self.bar.n)

    def close(self):
        if self.bar is not None:
            self.bar.close()
