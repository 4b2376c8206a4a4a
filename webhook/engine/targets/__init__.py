"""Rules about the objects a write acts on, judged with what Git says of them.

An OverridePolicy, a FederatedHPA, a CronFederatedHPA or a PropagationPolicy changes what other
objects become in the member clusters. What those objects are, who owns their fields and which
policy manages them is read from the bundle's index of the synced tree
(``webhook/bundle/index.py``), never from the request: an object's own annotations are its
writer's words.

One module per rule (``webhook/engine/builtins.py`` registers each, with what it matches):

- ``overrides.member-copies``: ``member_copies.py``
- ``ownership.autoscaler-target``: ``autoscaler_target.py``
- ``tenancy.takeover``: ``takeover.py``
- ``tenancy.selector-reach``: ``selector_reach.py``
- ``stateful-purge.targets``: ``stateful_purge.py``
- what they share (the templates a policy selects, a target the index lacks): ``selection.py``

The index is Git as of the last bundle. Git and the platform team write the tree, so an object
they name that the index does not know is judged on what the request carries; a tenant's write
about an unknown object is denied with what to do instead.
"""
