# What `uthctl audit` shows: the report a floor supervisor files (text), the
# rule tables with their sections and dates, the last hits matched to their
# log records, and the chart of the meter over the log.
import os
import time

from mystery import configs
from mystery.configs import MICROS_PER_DOLLAR
from mystery.money import dollars
from uth import paytables, sections

from ..errors import InputError
from . import expiry, hold, log_verify, mystery_report
from .meters_text import format_meters, setting_lines

HITS_SHOWN = 10


# ---- what the report holds ----

def config_rules(name):
    # The configuration in force with its 653b.1(c)(4) figures, or None.
    try:
        config = configs.get(name)
    except (ValueError, TypeError):
        return None
    figures = mystery_report.config_dict(config)
    return dict(figures, line=mystery_report.config_line(figures), section=configs.SECTION,
                effective=configs.EFFECTIVE, expires=configs.EXPIRES)


def rule_tables(today):
    # Every table the firmware carries, grouped where section and dates agree:
    # the Mystery configurations, then each wager's paytables.
    groups = [{"rules": "Mystery %s-%s" % (configs.NAMES[0], configs.NAMES[-1]),
               "section": configs.SECTION,
               "effective": configs.EFFECTIVE, "expires": configs.EXPIRES}]
    for wager in sorted(paytables.TABLES):
        by_source = {}
        for letter in sorted(paytables.TABLES[wager]):
            section, dates, _ = paytables.TABLES[wager][letter]
            by_source.setdefault((section, dates), []).append(letter)
        for (section, (effective, expires)), letters in by_source.items():
            groups.append({"rules": "%s %s" % (wager, ", ".join(letters)), "section": section,
                           "effective": effective, "expires": expires})
    for group in groups:
        group["expired"] = sections.expired(group["section"], today)
    return {"today": today, "tables": groups}


def hits(meters, records):
    # The board's last hits, newest first, each with its log record when the
    # log still holds it (the revealed hit value, checked by the log's audit),
    # and its validation's: who validated and the jackpot slip (653b.1(c)(5)(ii)).
    logged = _by_cycle(records, "hit")
    validations = _by_cycle(records, "validated")
    retained = _by_cycle(records, "retained")
    shown = []
    for seat, award, cycle, round_number, payment, when in \
            reversed(meters.get("last_hits", [])[-HITS_SHOWN:]):
        record = logged.get(cycle)
        validation = validations.get(cycle)
        shown.append({"cycle": cycle, "round": round_number, "seat": seat, "award": award,
                      "payment": payment, "time": when,
                      "log_seq": record["seq"] if record else None,
                      "hit_value": record.get("hit_value") if record else None,
                      "validated": None if validation is None else {
                          "employee": validation.get("employee"),
                          "slip": validation.get("slip")},
                      "retained": retained[cycle].get("amount") if cycle in retained else 0})
    return shown


def _by_cycle(records, kind):
    return {record.get("cycle"): record for record in records if record.get("ev") == kind}


# ---- the text ----

def text(r):
    sections = [_heading(r), _block("Meters", _meters_lines(r["meters"])),
                _block("Settings", _setting_lines(r.get("settings"))),
                _block("Last hits", _hit_lines(r["hits"])), _block("Log", _log_lines(r)),
                _block("Record keys", _key_lines(r.get("keys"))),
                _block("Accounting", _account_lines(r)),
                _block("Side wagers settled on the board: hold against par",
                       hold.hold_lines(r.get("holds", []))),
                _block("Rule tables carried by this firmware (today %s)"
                       % r["rule_tables"]["today"], _table_lines(r["rule_tables"])),
                _verdict(r)]
    return "\n\n".join(sections)


def _meters_lines(meters):
    # A floor's table may not have sent its first meters snapshot yet.
    if not meters:
        return ["none: no meters snapshot to audit (the audit fails for it)"]
    return format_meters(meters).splitlines()


def _block(title, lines):
    return "\n".join([title] + ["  " + line for line in lines])


def _heading(r):
    firmware = r["firmware"]
    version = ", ".join("%s %s" % (key, firmware[key]) for key in ("version", "build")
                        if firmware.get(key))
    config = r["config"]
    part = r["log"].get("part")
    what = "part of the log, from record %d (--from), of " % part if part is not None else ""
    lines = ["Mystery audit of %s%s, %s" % (what, r["source"], r["date"]),
             "firmware       %s" % (version or "version not reported by this board"),
             "table          state %s, payment %s%s" % (
                 r["status"]["state"], r["status"]["payment"],
                 ", FAULT %s" % r["status"]["fault"] if r["status"]["fault"] else "")]
    if config is None:
        lines.append("configuration  none")
    else:
        lines += ["configuration  %s" % config["line"],
                  "               58 Pa. Code %s, effective %s, expires %s%s"
                  % (config["section"], config["effective"], config["expires"],
                     "  EXPIRED" if config["expires"] <= r["rule_tables"]["today"] else "")]
    found = r.get("expiry")
    if found is not None:
        lines += expiry.warning_lines(found["host"])
        lines += expiry.board_lines({"rules": found["board"]})
    return "\n".join(lines)


def _setting_lines(in_force):
    return setting_lines(in_force) if in_force else ["not reported by this board"]


def _validation_text(validated):
    if validated is None:
        return "; its validation is no longer in the log"
    if "employee" not in validated or (validated["employee"] is None
                                       and validated["slip"] is None):
        return "; validated with no employee or slip recorded"
    return "; validated by employee %s, jackpot slip %s" % (
        validated["employee"] or "not recorded", validated["slip"] or "not recorded")


def _hit_lines(shown):
    if not shown:
        return ["none recorded"]
    lines = []
    for hit in shown:
        when = "" if hit["time"] is None else ", " + time.strftime(
            "%Y-%m-%d %H:%M:%S", time.gmtime(hit["time"])) + " board time"
        line = "cycle %d, round %d: seat %d, %s (%s%s)" % (
            hit["cycle"], hit["round"], hit["seat"], dollars(hit["award"]),
            hit["payment"], when)
        if hit["log_seq"] is not None:
            line += "; hit value %s revealed in record %d" % (
                dollars(hit["hit_value"]), hit["log_seq"])
        else:
            line += "; its record is no longer in the log"
        line += _validation_text(hit.get("validated"))
        if hit.get("retained"):
            line += "; %s retained at the reset to the minimum" % dollars(hit["retained"])
        lines.append(line)
    return lines


def _log_lines(r):
    log = r["log"]
    if not log["records"]:
        return ["no records"]
    lines = ["records %d-%d (%d), from %s" % (log["first_seq"], log["last_seq"],
                                              log["records"], r["source"]),
             "the meter's log head: record %d, hash %s" % tuple(log["head"])]
    before = log["first_seq"] - 1
    if before and log.get("part") is not None:
        lines.append("a part of the log: records 1-%d are not in it (the board has dropped "
                     "%d), and the hits, resets and rounds in them are not checked here"
                     % (before, log["dropped"]))
    elif before and before == log["dropped"]:
        lines.append("records 1-%d were dropped by the board's bounded log: the hits, resets "
                     "and rounds in them cannot be checked here, and the totals since the "
                     "board was new cannot be recomputed from the log" % before)
    elif before:
        lines.append("records 1-%d are not in the log, and the board has dropped %s"
                     % (before, "records 1-%d" % log["dropped"] if log["dropped"] else "none"))
    verify = log["verify"]
    if verify is not None:
        lines.append(log_verify.format_verify(verify))
    return lines


def _key_lines(keys):
    # The authenticators: checked against the key file, or only counted.
    if keys is None:
        return ["not examined"]
    board = "the board's key in force: %s" % (keys["board_key_id"] or "none (unsigned)")
    if not keys["checked"]:
        if not keys["signed"]:
            return ["no record carries an authenticator", board]
        return ["%d records carry an authenticator, NOT CHECKED: give the table's key file "
                "(--key-file F) to check them" % keys["signed"], board]
    lines = ["checked against the table's key file: %d records signed and verified, %d "
             "unsigned (from before the board had a key)" % (keys["signed"], keys["unsigned"])]
    if keys["problems"]:
        lines.append("%d problem(s): see the verdict" % len(keys["problems"]))
    return lines + [
        "key in force at the log's end: %s; %s" % (keys["key_id"] or "none", board)]


def _account_lines(r):
    i = r["accounts"]["identity"]
    lines = []
    if all(type(value) is int for value in i.values()):
        holds = i["seeded"] + i["contributed"] == i["paid"] + i["meter"] + i["retained"]
        lines.append("on the meters: seeded %s + contributed %s = paid %s + meter %s + "
                     "retained %s: %s"
                     % tuple([dollars(i[name]) for name in
                              ("seeded", "contributed", "paid", "meter", "retained")]
                             + ["holds" if holds else "BROKEN"]))
    if "qualifying_wagers" in r["meters"]:  # none from a firmware from before them
        lines.append("on the meters: %d qualifying wagers, %s wagered"
                     % (r["meters"]["qualifying_wagers"], dollars(r["meters"]["wagered"])))
    mine = r["accounts"]["recomputed"]
    if mine is not None:
        lines.append("recomputed from the log and compared with the meters: %s"
                     % r["accounts"]["compared"])
        if not mine["from_genesis"]:
            lines.append("over the records kept: seeded %s, contributed %s, paid %s, retained "
                         "%s, %d hits validated" % (dollars(mine["seeded"]),
                                                    dollars(mine["contributed"]),
                                                    dollars(mine["paid"]),
                                                    dollars(mine["retained"]), mine["hits"]))
    return lines


def _table_lines(tables):
    lines = []
    for group in tables["tables"]:
        dates = "effective %s, expires %s" % (group["effective"], group["expires"]) \
            if group["expires"] else "dates not in the firmware's reference text"
        lines.append("%-32s 58 Pa. Code %-13s %s%s" % (group["rules"], group["section"], dates,
                                                       "  EXPIRED" if group["expired"] else ""))
    return lines


def _verdict(r):
    if r["ok"]:
        signed = (r.get("keys") or {}).get("checked")
        return ("AUDIT PASSED: the chain, every revealed commitment%s and the accounts verify"
                % (", every authenticator" if signed else ""))
    if not r["failures"] and r.get("unverified"):
        # Nothing failed, but something rests on another's word (the floor's
        # audit: records unsigned, a head the board did not confirm).
        return "\n".join(["NOT VERIFIED: nothing failed, but not everything could be checked"]
                         + ["  - " + why for why in r["unverified"]])
    return "\n".join(["AUDIT FAILED: %d problem%s" % (len(r["failures"]),
                                                      "" if len(r["failures"]) == 1 else "s")]
                     + ["  - " + failure for failure in r["failures"]])


# ---- the chart ----

def check_plot_path(path):
    # Before the board is asked anything: a path that cannot be written is refused.
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path) or not os.path.isdir(folder):
        raise InputError("--plot %s: not a file in an existing folder" % path)


def plot(r, path):
    # The meter's chart (meter_figure) written to path as a PNG.
    from matplotlib import pyplot

    figure = meter_figure(r)
    try:
        figure.savefig(path, format="png")
    except OSError as error:
        raise InputError("--plot %s: cannot write it (%s)" % (path, error.strerror or error)) \
            from None
    finally:
        pyplot.close(figure)


def meter_figure(r):
    # The meter in dollars over the log's records; each hit marked at its record.
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot
    from matplotlib.ticker import MaxNLocator

    figure, axes = pyplot.subplots(figsize=(9, 4.8), dpi=100)
    # Record numbers are whole: no tick between two records.
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    if r["series"]:
        axes.step([seq for seq, _ in r["series"]],
                  [m / MICROS_PER_DOLLAR for _, m in r["series"]],
                  where="post", color="#4c72b0", label="meter")
    marks = [(seq, award / MICROS_PER_DOLLAR) for seq, _, _, award in r["hit_marks"]
             if type(award) is int]
    if marks:
        axes.scatter([seq for seq, _ in marks], [award for _, award in marks],
                     color="#c44e52", zorder=3, label="hits (award)")
    axes.set_xlabel("log record")
    axes.set_ylabel("meter ($)")
    axes.set_title("Mystery meter, records %s-%s: %s" % (
        r["log"]["first_seq"], r["log"]["last_seq"], "verified" if r["ok"] else "FAILED"))
    axes.legend(loc="upper left")
    figure.tight_layout()
    return figure
