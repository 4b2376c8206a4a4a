"""``fedgate plan``: what each member cluster will receive, and what it costs."""
