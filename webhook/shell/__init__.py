"""The webhook's shell: everything with a clock, a socket or a file around the pure ``review``.

- ``server.py``: ``fedgate serve``, gunicorn's master holding the bundle, its asyncio worker
  with connection and body limits (``DeadlineProtocol``); ``asgi.py``: the WSGI app behind it,
  each request's deadline; ``app.py``: the Flask view that parses, reviews and answers;
- ``settings.py``: the one frozen settings value, from the environment;
- ``response.py``: a Decision as an AdmissionReview response; ``audit.py``: the audit lines;
  ``metrics.py``: Prometheus metrics;
- ``reload.py``: the bundle mounted as a ConfigMap, reloaded without a restart; ``heap.py``:
  returning memory after large bodies;
- ``kubeapi.py``: fedgate's own HTTPS client of the Kubernetes API (get, list, watch);
  ``watch.py``: the live index kept from watches; ``background.py``: the periodic audit.
"""
