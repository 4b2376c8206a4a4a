"""One module per ``fedgate`` command: NAME, HELP, DESCRIPTION, add_arguments(), run()."""
