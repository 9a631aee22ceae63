# The checkout uthctl runs from: its firmware, boards/ and build/, found from
# this file's place (host_tools/uthctl/), by the boards and the builds alike.
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
