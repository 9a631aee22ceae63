# The logic test modules that take minutes rather than seconds. pytest marks
# their tests `slow` (tests/conftest.py) and `make check` leaves them out on
# both runtimes (tests/mp_each.py --quick); `make test` runs them. Times on
# the shared 2-core development machine.
SLOW_MODULES = (
    "test_exhaustive_five.py",  # all 2,598,960 five-card hands: 15-45 s on CPython
    "test_mystery_secrecy.py",  # the secrecy proof on a failing flash: 1-2.5 min on MicroPython
    "test_power_cut.py",  # the power-cut proof at every flash operation: 4-10 min on MicroPython
)
