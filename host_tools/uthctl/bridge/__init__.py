# A table's bridge (docs/floor.md): runs beside one table, takes its board's
# records over USB serial and publishes them to the floor's broker. It shares
# only the wire with the floor (uthctl.wire).
