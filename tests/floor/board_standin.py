# A board's host link as the floor's tests need it, on a pty: it answers
# `ping`, `status`, `meters`, `log` and `head` from the records and meters it
# is given, as docs/host-link.md says the firmware does, with the head's
# authenticator made by the firmware's own recordkey.py. Fast where a
# virtual board takes seconds to boot; the real Link, export and bridge talk
# to it. Also the records' signing, as a board with a key signs them.
import json
import os
import select
import threading
import tty

from mystery import chain, recordkey


def sign(records, key_hex):
    # Each record with its authenticator, as a board holding the key makes it.
    key = recordkey.parse_key(key_hex)
    kid = recordkey.key_id(key)
    return [dict(r, auth=recordkey.record_auth(key, kid, r["hash"])) for r in records]


def relinked(records, index, **changes):
    # The records with record `index` changed and every hash from it on made
    # again, as one who can write the database but holds no key would: each
    # record's authenticator left as it was.
    made = [dict(r) for r in records]
    made[index].update(changes)
    for position in range(index, len(made)):
        if position > 0:
            made[position]["prev"] = made[position - 1]["hash"]
        made[position]["hash"] = chain.record_hash(made[position])
    return made


def head_answer(key_hex, records, nonce):
    # The records the board keeps: those before the first were dropped.
    key = recordkey.parse_key(key_hex)
    seq, digest = (records[-1]["seq"], records[-1]["hash"]) if records else (0, chain.GENESIS)
    dropped = records[0]["seq"] - 1 if records else 0
    return {"ok": True, "reply": "head", "seq": seq, "hash": digest, "dropped": dropped,
            "nonce": nonce, "key_id": recordkey.key_id(key),
            "auth": recordkey.head_auth(key, seq, digest, nonce, dropped)}


class StandInBoard:
    def __init__(self, records, meters, key_hex=None, replay_nonce=None):
        # replay_nonce: `head` answered always for this nonce, an answer recorded
        # once and shown again.
        self.records, self.meters, self.key_hex = records, meters, key_hex
        self.replay_nonce = replay_nonce
        self.asked = []  # every command it was sent
        self.master, slave = os.openpty()
        tty.setraw(slave)
        self.path = os.ttyname(slave)
        self.slave = slave
        self.running = True
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def close(self):
        self.running = False
        self.thread.join(5)
        os.close(self.master)
        os.close(self.slave)

    def _serve(self):
        pending = b""
        while self.running:
            if not select.select([self.master], [], [], 0.05)[0]:
                continue
            pending += os.read(self.master, 65536)
            *lines, pending = pending.split(b"\n")
            for line in lines:
                self._answer(line.strip())

    def _answer(self, line):
        try:
            request = json.loads(line)
        except ValueError:
            return
        if not isinstance(request, dict):
            return
        self.asked.append(request)
        for reply in self._replies(request):
            os.write(self.master, json.dumps(reply).encode() + b"\r\n")

    def _replies(self, request):
        cmd, number = request.get("cmd"), request.get("id")
        if cmd == "log":
            sent = [r for r in self.records if r["seq"] >= request.get("since", 0)]
            return [{"reply": "log", "record": r} for r in sent] + [
                {"ok": True, "reply": "log", "count": len(sent), "id": number}]
        if cmd == "meters":
            return [{"ok": True, "reply": "meters", "meters": self.meters, "id": number}]
        if cmd == "head" and self.key_hex is not None:
            nonce = self.replay_nonce or request.get("nonce")
            return [dict(head_answer(self.key_hex, self.records, nonce), id=number)]
        if cmd in ("ping", "status"):
            return [{"ok": True, "reply": cmd, "state": "betting", "id": number}]
        return [{"ok": False, "error": "unknown command", "id": number}]
