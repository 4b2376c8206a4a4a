"""What the engine, the bundle, the Karmada simulation, the shell and the compiler all share.

- ``errors.py``: the one error hierarchy and the located finding every error is made of;
- ``yamlsource.py``: YAML read with the line of every value; ``schema.py``: typed field checks
  that name the file and line; ``jsontext.py``: JSON text checks (duplicate keys);
- ``values.py``: tests on JSON values the hot paths share; ``memo.py``: small memos;
- ``quantity.py``: Kubernetes quantities; ``labels.py``: label keys, values and selectors
  (the one port of Kubernetes' label selector);
- ``ledger.py``: the ownership ledger (which writer owns which JSON pointer).
"""
