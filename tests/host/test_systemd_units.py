# The systemd units in deploy/systemd (docs/floor-setup.md, "Running a floor on a
# Debian host"): each names its user, its folder and a restart policy; each
# command line is one uthctl's own parser takes, with the environment files'
# values the units' comments show; and systemd itself finds nothing wrong in
# them (systemd-analyze verify, where it is installed).
import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from uthctl.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "deploy" / "systemd"
UNITS = sorted(FOLDER.glob("*.service")) + sorted(FOLDER.glob("*.timer"))
BACKUP = FOLDER / "uthctl-floor-backup.service"
# The services that run for as long as the host does.
RUNNING = [unit for unit in UNITS if unit.suffix == ".service" and unit != BACKUP]
UTHCTL = "/opt/uthctl/.venv/bin/uthctl"
# What /etc/uthctl/*.env holds, as the units' comments say; %i is table 3.
EXAMPLE = {"PORT": "/dev/ttyACM0", "BROKER": "mqtts://floor.example:8883",
           "CASINO": "riverside", "BRIDGE_OPTIONS": "--cafile /etc/uthctl/ca.crt",
           "FLOOR_OPTIONS": "--cafile /etc/uthctl/ca.crt",
           "PAGE_OPTIONS": "--host 0.0.0.0 --certfile page.crt --keyfile page.key"}


def sections(path):
    # {section: {key: [values]}}, as systemd reads a unit (comments and blank
    # lines skipped; a key may come more than once).
    found, current = {}, None
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            current = found.setdefault(line.strip("[]"), {})
            continue
        key, value = line.split("=", 1)
        current.setdefault(key.strip(), []).append(value.strip())
    return found


def command_line(text, options):
    # ExecStart's words with %i, ${NAME} and $NAME filled in; an unbraced
    # $NAME alone in a word is split into words (none when it is empty).
    words = []
    for word in shlex.split(text.replace("%i", "3")):
        if re.fullmatch(r"\$[A-Z_]+", word):
            words += shlex.split(options.get(word[1:], ""))
        else:
            words.append(re.sub(r"\$\{([A-Z_]+)\}", lambda m: options[m.group(1)], word))
    return words


def names(path):
    return path.name


def test_the_floor_its_page_its_broker_its_backups_and_a_tables_bridge_have_units():
    assert [unit.name for unit in UNITS] == [
        "uthctl-bridge@.service", "uthctl-floor-backup.service", "uthctl-floor-page.service",
        "uthctl-floor.service", "uthctl-mosquitto.service", "uthctl-floor-backup.timer"]


@pytest.mark.parametrize("unit", RUNNING, ids=names)
def test_each_service_names_its_user_its_folder_and_restarts(unit):
    service = sections(unit)["Service"]
    assert service["User"][0] in ("uthfloor", "uthbridge")
    assert service["User"] != ["root"]
    assert service["WorkingDirectory"][0] == "/var/lib/" + service["User"][0]
    assert service["Restart"] == ["always"]
    assert service["UMask"] == ["0077"]  # what it writes is its owner's alone
    assert sections(unit)["Install"]["WantedBy"] == ["multi-user.target"]


@pytest.mark.parametrize("options", [EXAMPLE, {k: "" for k in EXAMPLE if "OPTIONS" in k}
                                     | {k: v for k, v in EXAMPLE.items()
                                        if "OPTIONS" not in k}],
                         ids=["with options", "without"])
@pytest.mark.parametrize("unit", [u for u in RUNNING if "mosquitto" not in u.name], ids=names)
def test_each_uthctl_command_line_is_one_uthctl_takes(unit, options):
    words = command_line(sections(unit)["Service"]["ExecStart"][0], options)
    assert words[0] == UTHCTL
    args = build_parser().parse_args(words[1:])  # a wrong option exits: SystemExit
    assert args.command in ("floor", "bridge")
    if args.command == "bridge":
        assert (args.table, args.credentials) == ("3", "/var/lib/uthbridge/table-3.json")


def test_the_brokers_unit_runs_the_configuration_broker_config_writes():
    words = shlex.split(sections(ROOT / "deploy/systemd/uthctl-mosquitto.service")
                        ["Service"]["ExecStart"][0])
    # broker-config writes DIR/mosquitto.conf; the floor's unit has DIR.
    floor = shlex.split(sections(ROOT / "deploy/systemd/uthctl-floor.service")
                        ["Service"]["ExecStart"][0])
    assert words[1:] == ["-c", floor[floor.index("--dir") + 1] + "/mosquitto.conf"]


def test_the_backup_dumps_the_floors_database_as_the_floors_user_every_six_hours():
    service = sections(BACKUP)["Service"]
    assert (service["User"], service["Type"], service["UMask"]) == (["uthfloor"], ["oneshot"],
                                                                   ["0077"])
    dump = shlex.split(service["ExecStart"][0])[-1]
    assert "pg_dump --format=custom" in dump and dump.endswith(" uthfloor")
    timer = sections(FOLDER / "uthctl-floor-backup.timer")
    assert timer["Timer"]["OnCalendar"] == ["*-*-* 00/6:15:00"]
    assert timer["Timer"]["Persistent"] == ["true"]


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze")
@pytest.mark.parametrize("unit", UNITS, ids=names)
def test_systemd_finds_nothing_wrong_in_the_unit(unit, tmp_path):
    # verify checks each command is there to run: the copy runs this
    # checkout's uthctl where the unit names /opt/uthctl's, and true where
    # Mosquitto is not installed; nothing else in it changes.
    uthctl = Path(os.environ.get("VIRTUAL_ENV", ROOT / ".venv")) / "bin" / "uthctl"
    if not uthctl.exists():
        pytest.skip("no %s: make setup" % uthctl)
    mosquitto = "/usr/sbin/mosquitto"
    for each in UNITS:  # the unit, and those it names (Wants=) beside it
        text = each.read_text().replace(UTHCTL, str(uthctl))
        if not Path(mosquitto).exists():
            text = text.replace(mosquitto, shutil.which("true"))
        (tmp_path / each.name).write_text(text)
    name = unit.name.replace("@.", "@3.")
    done = subprocess.run(["systemd-analyze", "verify", "--man=no", name], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout + done.stderr) == (0, "")
