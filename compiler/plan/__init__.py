"""``fedgate plan``: what each member cluster will receive, and what it costs.

The plan of the rendered apps is ``core.py`` (placement, bills, member copies judged in
``members.py``); of any tree, ``tree.py``; what a cluster failure does, ``failover.py``. Its views,
one module each: ``text.py`` (the terminal), ``jsonview.py`` (the JSON tools read), ``markdown.py``
and ``html.py`` (the pull-request comment and the page). ``livechain.py`` is what ``fedgate trace``
puts beside the plan. The command that reads the files and picks the view is
``compiler/commands/plan.py``.
"""
