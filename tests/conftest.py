# pytest: the firmware's logic imports `micropython`; uthctl installs the shim.
import uthctl  # noqa: F401
