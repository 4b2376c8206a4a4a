"""One module per ``fedgate`` command: NAME, HELP, DESCRIPTION, add_arguments(), run().

A new option of one command: that command's ``add_arguments`` (``compile.py``, ``check.py``,
``plan.py``, ...); an option every command shares: ``common.py``. A new command: a module here
named after it, listed in ``compiler/cli.py`` (``COMMANDS``). Either way, docs/cli.md.
"""
