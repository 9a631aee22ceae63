# The floor's audit (uthctl floor audit, docs/floor.md): every table's records
# checked as the database holds them, and the live audit over the broker.
