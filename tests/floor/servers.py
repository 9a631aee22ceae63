# The servers the floor's tests start for themselves, each on loopback or a
# unix socket in a temporary folder, each stopped when its test ends:
# Debian's Mosquitto and PostgreSQL. A server that is not installed makes
# its tests skip, saying which package brings it. A test run that is killed
# (a time limit's SIGKILL) leaves none behind: each server has the
# parent-death signal the boards have (floor_demo/ending.py).
import glob
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from floor_demo.ending import ending_with_us

START_WAIT_S = 20.0
def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def why_no_mosquitto():
    for tool in ("mosquitto", "mosquitto_passwd"):
        if shutil.which(tool) is None and not Path("/usr/sbin/" + tool).exists():
            return "no %s: apt-get install mosquitto (.ci/run does as root)" % tool
    return None


def _mosquitto():
    return shutil.which("mosquitto") or "/usr/sbin/mosquitto"


class Mosquitto:
    # One broker on 127.0.0.1:port with the given configuration file.
    def __init__(self, config, port, log):
        self.config, self.port, self.log = config, port, log
        self.process = None

    @property
    def url(self):
        return "mqtt://127.0.0.1:%d" % self.port

    def start(self):
        self.process = ending_with_us([_mosquitto(), "-c", str(self.config)],
                                      stdout=subprocess.DEVNULL, stderr=open(self.log, "ab"))
        deadline = time.monotonic() + START_WAIT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise OSError("mosquitto exited (%d): %s" % (
                    self.process.returncode, Path(self.log).read_text()[-2000:]))
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.2).close()
                return self
            except OSError:
                time.sleep(0.05)
        raise OSError("mosquitto did not listen on %d within %.0f s" % (self.port, START_WAIT_S))

    def kill(self):
        # As a crash: no clean goodbye to its clients.
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.process = None


def _postgres_bin(name):
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/%s" % name))
    return found[-1] if found else shutil.which(name)


def why_no_postgres():
    for name in ("initdb", "postgres"):
        if _postgres_bin(name) is None:
            return "no PostgreSQL server (%s): apt-get install postgresql" % name
    if os.geteuid() == 0:
        try:
            import pwd

            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root with no `postgres` user to run the server as"
    return None


class Postgres:
    # A throwaway cluster in a temporary folder, reached by its unix socket only.
    def __init__(self):
        self.folder = Path(tempfile.mkdtemp(prefix="floor-pg-"))
        self.user = None
        if os.geteuid() == 0:  # the server refuses to run as root
            import pwd

            entry = pwd.getpwnam("postgres")
            os.chown(self.folder, entry.pw_uid, entry.pw_gid)
            self.user = "postgres"
        self.process = None

    @property
    def url(self):
        return "postgresql+psycopg://floor@/postgres?host=%s" % self.folder

    def _run(self, argv, **options):
        return ending_with_us(argv, user=self.user, cwd=self.folder, **options)

    def start(self):
        data = self.folder / "data"
        initdb = self._run([_postgres_bin("initdb"), "-D", str(data), "-U", "floor", "-A",
                            "trust", "--no-sync"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE)
        _, errors = initdb.communicate(timeout=120)
        if initdb.returncode != 0:
            raise OSError("initdb failed: %s" % errors.decode()[-2000:])
        self.process = self._run([_postgres_bin("postgres"), "-D", str(data), "-k",
                                  str(self.folder), "-c", "listen_addresses=", "-c",
                                  "fsync=off"], stdout=subprocess.DEVNULL,
                                 stderr=open(self.folder / "server.log", "ab"))
        deadline = time.monotonic() + START_WAIT_S
        while not (self.folder / ".s.PGSQL.5432").exists():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise OSError("postgres did not start: %s"
                              % (self.folder / "server.log").read_text()[-2000:])
            time.sleep(0.05)
        return self

    def stop(self):
        if self.process is not None:
            self.process.send_signal(signal.SIGINT)  # fast shutdown: clients cut off
            self.process.wait(30)
        shutil.rmtree(self.folder, ignore_errors=True)


def without_keys(floor_dir, names):
    # Tables whose boards have no record key, with their key files removed:
    # the floor takes their records by their chain alone, shown unsigned. A
    # key file would hold them until their board is provisioned (docs/floor-design.md,
    # "Unsigned records of a keyed table").
    for name in names:
        floor_dir.key_file(name).unlink()


def tables_on_mosquitto(stack, floor_dir, tmp_path, cents_played, names=("3", "4")):
    # The tables' accounts, a Mosquitto on their floor's configuration, and a
    # virtual table each whose hit value lies beyond cents_played (so each
    # round is one record), all ended with the stack: (broker, tables).
    from floor_data import quiet_seeds

    from floor_demo.virtual_tables import Table

    for name in names:
        floor_dir.add_table(name)
    port = free_port()
    broker = Mosquitto(floor_dir.broker_config(port), port, tmp_path / "mosquitto.log").start()
    stack.callback(broker.kill)
    seeds = quiet_seeds(len(names), cents_played=cents_played)
    tables = [Table(name, tmp_path, floor_dir, broker, seed)
              for name, seed in zip(names, seeds, strict=True)]
    for table in tables:
        stack.callback(table.close)
    return broker, tables
