# uthctl mystery configs|simulate|verify: the Must-Hit-By Mystery bonus
# (58 Pa. Code 653b.1) on the host, with the firmware's own engine.
import argparse
import contextlib
import json
import os
import sys
import textwrap

from mystery import configs
from uth import sections
from uth.seats import MAX_SEAT

from ..analysis import log_verify, logread, mystery_report, mystery_sim, record_auth
from ..analysis.expiry import host_date
from ..boards.seats import sim_seats
from ..errors import UthctlError, expecting
from .progress import Progress

_SIMULATE_HELP = """\
Runs the firmware's meter engine (mystery.meter.Meter, in memory) for ROUNDS
rounds. The device's random bytes come from random.Random(SEED).randbytes.

%s

Each hit is validated at once, payment alternating between table inventory and
jackpot slip, and the meter is reset.

Checked after every operation: seeded + contributed = paid + meter, and the
engine's meters against the same accounts recomputed here. At each hit: the
revealed hit value and salt against the commitment of the cycle's reset, the
winning seat, and the award (within [minimum, maximum]). Exit 2 when any check
fails. Reports the meters, every award (--json), the mean award against
(minimum + maximum) / 2, and chi-square and Kolmogorov-Smirnov tests of the
revealed hit values against the uniform over [minimum, maximum - 1 cent].
""" % textwrap.fill("Wager model: %s; a seat qualifies with a UTH wager and a progressive "
                    "wager of at least the minimum." % mystery_sim.WAGER_MODEL_TEXT, 79)


def add_parser(sub):
    parser = sub.add_parser("mystery", help="Must-Hit-By Mystery bonus: configs, simulate, "
                            "verify a log")
    actions = parser.add_subparsers(dest="action", required=True)
    actions.add_parser("configs", help="the twelve configurations of 653b.1(c)(4)")
    simulate = actions.add_parser(
        "simulate", help="seeded simulation on the firmware's engine",
        description=_SIMULATE_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    simulate.add_argument("--config", choices=configs.NAMES, default="B2",
                          help="configuration (default B2)")
    simulate.add_argument("--rounds", type=int, default=100_000,
                          help="rounds to play (default 100,000)")
    simulate.add_argument("--seats", type=int, default=sim_seats(),
                          help="seats 1..N play (N <= %d; default %d, as many as the "
                               "virtual table wires)" % (MAX_SEAT, sim_seats()))
    simulate.add_argument("--seed", type=int, default=1, help="seed (default 1)")
    simulate.add_argument("--plot", metavar="FILE.png", help="histogram of awards")
    simulate.add_argument("--log", metavar="FILE", help="write the event log as JSON lines, "
                          "linked as the store links it (one record per event: large)")
    verify = actions.add_parser("verify", help="check a log's hash chain and every revealed "
                                "commitment (exit 2 on the first problem)")
    verify.add_argument("logfile", metavar="LOGFILE", help="JSON lines, '-' for stdin")
    verify.add_argument("--after", type=_anchor, metavar="SEQ:HASH",
                        help="the last record of the previous export: the log must follow it")
    verify.add_argument("--head", type=_anchor, metavar="SEQ:HASH",
                        help="the meter's log head (uthctl meters: log_seq, log_hash): the "
                        "log must end there")
    verify.add_argument("--dropped", type=_count, metavar="N",
                        help="the records the board's bounded log has dropped (uthctl meters: "
                        "log_dropped): a log not from record 1 must start at record N + 1")
    verify.add_argument("--from", dest="from_seq", type=_count, metavar="SEQ",
                        help="check a part of a log, which must start at record SEQ (the "
                        "records before it are not checked, and the report says so)")
    verify.add_argument("--key-file", metavar="F",
                        help="the table's key file (mode 600): check every record's "
                        "authenticator with its keys")
    return parser


def _count(text):
    if not text.isdigit():
        raise argparse.ArgumentTypeError("expected a whole number, got %r" % text)
    return int(text)


def _anchor(text):
    # SEQ:HASH, as a record's seq and its 64-hex-digit hash.
    seq, _, digest = text.partition(":")
    if not (seq.isdigit() and len(digest) == 64
            and all(c in "0123456789abcdef" for c in digest)):
        raise argparse.ArgumentTypeError("expected SEQ:HASH (a record number and its 64 "
                                         "hex digit hash), got %r" % text)
    return int(seq), digest


# ---- configs ----

def _configs():
    return [mystery_report.config_dict(configs.get(name)) for name in configs.NAMES]


def _run_configs(args):
    rows = _configs()
    expired = sections.expired(configs.SECTION, host_date())
    if args.json:
        print(json.dumps({"section": configs.SECTION, "effective": configs.EFFECTIVE,
                          "expires": configs.EXPIRES, "expired": expired, "configs": rows}))
        return 0
    print("Must-Hit-By Mystery configurations, 58 Pa. Code %s (effective %s, expires %s)%s"
          % (configs.SECTION, configs.EFFECTIVE, configs.EXPIRES,
             "  EXPIRED" if expired else ""))
    for row in rows:
        print("  " + mystery_report.config_line(row))
    return 0


# ---- simulate ----

def _simulate(args, log_stream):
    progress = Progress("mystery %s" % args.config, unit="round")
    try:
        return mystery_sim.simulate(args.config, args.rounds, args.seats, args.seed,
                                    progress=progress, log_stream=log_stream)
    finally:
        progress.close()


def _open_output(path, option, mode):
    # Opened for writing before a run of minutes, not after it: a path that
    # cannot be written (a folder, /proc, no permission, even for root) is
    # refused at once, in one line naming the option.
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise UthctlError("%s %s is a folder, not a file" % (option, path))
    if not os.path.isdir(folder):
        raise UthctlError("%s %s: no folder %s" % (option, path, folder))
    try:
        return open(path, mode)
    except OSError as error:
        raise UthctlError("%s %s: cannot write it (%s)"
                          % (option, path, error.strerror or error)) from None


def _run_simulate(args):
    if args.rounds <= 0:
        raise UthctlError("--rounds must be a positive number of rounds")
    if not 1 <= args.seats <= MAX_SEAT:
        raise UthctlError("--seats must be 1 to %d" % MAX_SEAT)
    with contextlib.ExitStack() as files:
        plot = files.enter_context(_open_output(args.plot, "--plot", "wb")) \
            if args.plot else None
        log = files.enter_context(_open_output(args.log, "--log", "w")) if args.log else None
        sim = _simulate(args, log)
        rep = mystery_report.report(sim)
        if plot is not None:
            mystery_report.plot_awards(rep, plot)
    print(json.dumps(rep) if args.json else mystery_report.format_report(rep))
    return 0 if rep["ok"] else 2


# ---- verify ----

def _run_verify(args):
    keys = record_auth.load_keys(args.key_file) if args.key_file else None
    if args.logfile == "-":
        records = logread.read_log(sys.stdin)
    else:
        with open(args.logfile) as stream:
            records = logread.read_log(stream)
    result = log_verify.verify_log(records, after=args.after, head=args.head,
                                   dropped=args.dropped, from_seq=args.from_seq)
    _check_authenticators(result, records, keys)
    text = log_verify.format_verify(result)
    if result["ok"]:
        text += "; " + _authenticators_text(result["keys"])
    print(json.dumps(result) if args.json else text)
    return 0 if result["ok"] else 2


def _check_authenticators(result, records, keys):
    # With the key file, every authenticator checked: the first problem
    # fails the log, as the chain's does. Without it, they are counted.
    if keys is None:
        result["keys"] = {"checked": False,
                          "signed": sum(1 for record in records if "auth" in record)}
        return
    found = record_auth.check_records(records, keys)
    result["keys"] = dict(found, checked=True)
    if result["ok"] and found["problems"]:
        result["ok"] = False
        result["problem"] = found["problems"][0]


def _authenticators_text(found):
    if not found["checked"]:
        if not found["signed"]:
            return "no record carries an authenticator"
        return "%d records carry an authenticator, not checked (--key-file)" % found["signed"]
    return "authenticators: %d signed records verify with the key file, %d unsigned" % (
        found["signed"], found["unsigned"])


_ACTIONS = {"configs": _run_configs, "simulate": _run_simulate, "verify": _run_verify}


@expecting(OSError)
def run(args):
    """uthctl mystery: Must-Hit-By Mystery bonus: configs, simulate, verify a log."""
    return _ACTIONS[args.action](args)
