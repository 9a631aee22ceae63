# A seeded generator that gives the same deals on CPython and MicroPython
# (their `random` modules differ), so a failure on one runtime replays on the other.


class Lcg:
    def __init__(self, seed):
        self.state = seed & 0xFFFFFFFF

    def below(self, n):
        # Numerical Recipes' LCG; the high bits are the better ones.
        self.state = (self.state * 1664525 + 1013904223) & 0xFFFFFFFF
        return (self.state >> 8) % n

    def deal(self, count):
        deck = list(range(52))
        for i in range(count):
            j = i + self.below(52 - i)
            deck[i], deck[j] = deck[j], deck[i]
        return deck[:count]
