"""Searches for certificates: each prover is named like the checker file whose format it writes
(provers/bound.py -> checker/bound.py, sos, witness, symmetry, refutation, empty); route/routes
order them and certify.certify(problem, witness) runs them, else writes a numeric certificate.
Nothing here is trusted: whatever a prover builds, the checker re-checks."""
