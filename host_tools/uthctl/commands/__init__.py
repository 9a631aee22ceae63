# The uthctl subcommands, one module each: its parser (add_parser) and what
# it does (run). cli.py gathers them.
