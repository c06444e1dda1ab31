"""Certificates for confirmed answers (docs/problem-format.md, "Certificates for confirmed answers").

certify.certify(problem, witness) -> dict     # the routes of routes.ROUTES in order, else numeric
verify.verify(certificate, spec) -> (ok, reason)   # the trusted checker

Nothing is re-exported here: importing the checker must not load the provers (a package's
__init__ runs on every import of its submodules).
"""
