"""The rule engine: pure functions from (request, bundle) to a Decision; no I/O, no web."""
