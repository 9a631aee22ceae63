# The wire between a table's bridge and the floor: MQTT topics, the client
# and the broker accounts' credentials files. bridge/ and floor/ both import
# it and neither imports the other (tests/host/test_import_cycles.py).
