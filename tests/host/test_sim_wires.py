# The virtual board's pin wires reconnect within a second of a drop, however
# long the connection had been up: ticks wrap (a board's at 2**30 ms), so an
# interval measured from the connect of a week ago would read as negative.
import pathlib
import socket
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
MICROPYTHON = pathlib.Path(sys.executable).parent / "micropython"
WEEK_MS = 7 * 24 * 3600 * 1000

SCRIPT = """
import board
from table import clock

class Clock:
    # A board's ticks, wrapping at 2**30 ms, advanced by hand.
    now = 0
    def ticks_ms(self):
        return self.now & ((1 << 30) - 1)
    ticks_add = staticmethod(clock.ticks_add)
    ticks_diff = staticmethod(clock.ticks_diff)

fake = Clock()
board.time = fake
wires = board.Wires(("127.0.0.1", %d))
assert wires.connect()
fake.now += %d  # the connection stays up this long
wires.drop()
waited = 0
while wires.sock is None and waited < 5000:
    fake.now += 5
    waited += 5
    wires.service()
print("reconnected" if wires.sock is not None else "deaf", waited)
"""


def test_wires_reconnect_within_a_second_after_a_week_connected():
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
        env = {"MICROPYPATH": "%s:%s" % (ROOT / "boards" / "sim", ROOT / "firmware")}
        done = subprocess.run([str(MICROPYTHON), "-c", SCRIPT % (port, WEEK_MS)], env=env,
                              capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    verdict, waited = done.stdout.split()
    assert verdict == "reconnected", done.stdout
    assert int(waited) <= 1000 + 5, done.stdout  # _RETRY_MS, one tick of slack
