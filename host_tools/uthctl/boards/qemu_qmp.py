# Stopping the emulated ESP32's QEMU so that its flash file holds every flash
# operation the chip finished, before the process is killed.
#
# QEMU's SPI flash model writes a program or an erase into the flash file
# asynchronously (its block layer's AIO): the chip goes on at once, and the
# write lands a moment later. A QEMU killed in that moment leaves the file
# without an operation the chip had finished, the last program of a round,
# say, which no power cut on a real chip does. QMP's `stop` pauses the
# machine and drains the block layer before it answers (vm_stop), so after
# its answer the file is what the chip left. Three JSON lines on QEMU's QMP
# socket (-qmp unix:...), asked synchronously from the supervisor's thread;
# why not qemu.qmp: docs/development.md, "Libraries, and why".
import json
import socket

STOP_WAIT_S = 5.0  # QEMU answers a stop in milliseconds; a hung one is killed anyway


def stop(qmp_path, timeout=STOP_WAIT_S):
    # True once QEMU has answered `stop`; False if it could not be asked (not
    # listening, gone, silent, refusing), and the caller kills it as it is.
    try:
        return "return" in ask(qmp_path, "stop", timeout=timeout)[-1]
    except (OSError, ValueError):
        return False


def ask(qmp_path, *commands, timeout=STOP_WAIT_S):
    # Each command's answer ({"return": ...} or {"error": ...}), in order, after
    # the handshake QMP asks first; OSError if QEMU does not answer in time.
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        sock.connect(qmp_path)
        lines = sock.makefile("rb")
        json.loads(lines.readline())  # the greeting
        answers = []
        for command in ("qmp_capabilities",) + commands:
            sock.sendall(json.dumps({"execute": command}).encode() + b"\r\n")
            answers.append(_answer(lines))
        return answers[1:]


def _answer(lines):
    # The next line that is no event ({"event": ...} lines interleave). At
    # the end of the stream json.loads(b"") raises ValueError.
    while True:
        message = json.loads(lines.readline())
        if "event" not in message:
            return message
