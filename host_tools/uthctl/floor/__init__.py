# The casino floor (docs/floor.md): each table's bridge publishes its
# board's log records to an MQTT broker; the floor service checks them and
# keeps every table's records in one database.
