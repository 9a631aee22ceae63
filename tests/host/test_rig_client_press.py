# The rig client's press (links/rig.py): one request the rig carries out
# whole; should its answer never come, the client sends the release all the
# same before it reports the failure, so its own timeout leaves nothing held.
import json
import socket
import threading

import pytest

from uthctl.links.rig import Rig, RigError


class SilentOnPress(threading.Thread):
    # A rig port that answers every request but a press, recording each one.
    def __init__(self, refuse_press=False):
        super().__init__(daemon=True)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.address = "127.0.0.1:%d" % self.listener.getsockname()[1]
        self.refuse_press = refuse_press
        self.requests = []  # each without its id, which the ids list keeps
        self.ids = []
        self.start()

    def run(self):
        conn, _ = self.listener.accept()
        with conn, conn.makefile("rwb") as stream:
            for line in stream:
                request = json.loads(line)
                self.ids.append(request.pop("id"))  # every request names itself
                self.requests.append(request)
                if request["op"] == "press" and not self.refuse_press:
                    continue
                if request["op"] == "press":
                    reply = {"ok": False, "error": "unknown op 'press' (state, set, ping)"}
                else:
                    reply = {"ok": True, "pin": request["pin"], "level": request["level"],
                             "applied": True}
                stream.write(json.dumps(reply).encode() + b"\n")
                stream.flush()


@pytest.mark.parametrize("press", ["press_lock", "turn_key"])
def test_a_press_whose_answer_never_comes_is_released_by_the_client(press):
    rig_port = SilentOnPress()
    with Rig(rig_port.address, timeout=0.3) as rig:
        with pytest.raises(RigError, match="no answer within"):
            getattr(rig, press)(100)
    pin = {"press_lock": "lock", "turn_key": "key"}[press]
    rig_port.join(5)
    assert rig_port.requests == [{"op": "press", "pin": pin, "ms": 100},
                                 {"op": "set", "pin": pin, "level": 0}]


def test_a_rig_without_press_gets_the_press_and_the_release_as_two_sets():
    rig_port = SilentOnPress(refuse_press=True)
    with Rig(rig_port.address, timeout=2.0) as rig:
        assert rig.press_lock(20)["level"] == 0
    rig_port.join(5)
    assert rig_port.requests[1:] == [{"op": "set", "pin": "lock", "level": 1},
                                     {"op": "set", "pin": "lock", "level": 0}]
