# The soak: many rounds with random seats through a board's rig, the host's
# own record of every event reconciled with the board's meters after every
# hit, and the board's log exported as it goes and audited from record 1.
