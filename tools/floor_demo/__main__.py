# make floor-demo: Mosquitto on loopback (or, where it is not installed, the
# floor's embedded amqtt broker), four virtual boards each with its bridge,
# the floor service and its page, and a round played on one table
# or another every few seconds until Ctrl-C. Everything lives in
# build/floor-demo, made anew each time; the demo supervisor's password is
# written to a file there for its owner alone, never printed.
import random
import secrets
import shutil
import socket
import subprocess
import sys
import time
import types
from pathlib import Path

from uthctl.floor.accounts import Accounts
from uthctl.floor.page.users import Users
from uthctl.private_file import write_private

from .ending import ending_with_us
from .virtual_tables import Table, start_floor, stop_process, uthctl_process

TABLES = ("1", "2", "3", "4")
PAGE_PORT = 8080
ROUND_EVERY_S = 3.0


class Broker:
    def __init__(self, config, port, log):
        self.url = "mqtt://127.0.0.1:%d" % port
        self.process = ending_with_us([shutil.which("mosquitto"), "-c", str(config)],
                                      stdout=subprocess.DEVNULL, stderr=open(log, "ab"))


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def floor_folder(folder):
    # build/floor-demo anew, with the floor's folder inside it. Its floor.json
    # records the database, so the README's `uthctl floor --dir ... audit`
    # and `users` reach the demo's floor with no --db.
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    accounts = Accounts(folder / "floor")
    db = "sqlite:///%s" % (folder / "floor.db").resolve()
    accounts.init("demo", database=db)
    for name in TABLES:
        accounts.add_table(name)
    return accounts, db


def main(folder=Path("build/floor-demo")):
    accounts, db = floor_folder(folder)
    port = free_port()
    running, tables = [], []
    try:
        if shutil.which("mosquitto") is not None:
            broker = Broker(accounts.broker_config(port), port, folder / "mosquitto.log")
            running.append(broker.process)
            running.append(start_floor(accounts, broker, db, folder / "floor.log"))
        else:  # the floor runs the embedded broker itself
            print("no Mosquitto: the floor's embedded broker (amqtt) instead", flush=True)
            broker = types.SimpleNamespace(url="mqtt://127.0.0.1:%d" % port)
            running.append(uthctl_process(["floor", "--dir", str(accounts.folder),
                                           "--embedded-broker", str(port), "--db", db],
                                          folder / "floor.log"))
        for name in TABLES:
            # Keyed before its first configuration, as a casino's table is at
            # installation: every record signed, and no UNSIGNED alert on the page.
            tables.append(Table(name, folder, accounts, broker,
                                key_file=accounts.key_file(name)))
            tables[-1].start_bridge()
        password = secrets.token_urlsafe(12)
        Users(accounts.folder / "users.json").add("demo", "supervisor", password)
        secret = folder / "demo-password"
        write_private(secret, password + "\n")
        running.append(uthctl_process(["floor", "--dir", str(accounts.folder), "--db", db,
                                       "page", "--listen", str(PAGE_PORT)],
                                      folder / "page.log"))
        print("the floor page: http://127.0.0.1:%d/ (user demo, password in %s); "
              "Ctrl-C ends the demo" % (PAGE_PORT, secret), flush=True)
        print("its audit: uthctl floor --dir %s audit --broker %s"
              % (accounts.folder, broker.url), flush=True)
        while True:
            time.sleep(ROUND_EVERY_S)
            random.choice(tables).play_round()
    except KeyboardInterrupt:
        return 0
    finally:
        for table in tables:
            table.close()
        for process in reversed(running):
            stop_process(process)


if __name__ == "__main__":
    sys.exit(main())
