# The test rig's firmware: answers the rig protocol (rig_protocol.py) on the
# USB serial link, one JSON line each way, for as long as it runs. Ctrl-C
# stops it at the REPL, as mpremote does to deploy.
import sys
import time

import board
from rig_protocol import serve

stdin = getattr(sys.stdin, "buffer", sys.stdin)
stdout = getattr(sys.stdout, "buffer", sys.stdout)
serve(board.build(time.sleep_ms), stdin.readline, stdout.write)
