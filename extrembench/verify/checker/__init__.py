"""The trusted checker (docs/problem-format.md, "Certificates for confirmed answers"): everything
`extrembench verify-certificate` needs and nothing else. It imports only core, problems and itself
(tests/test_layers.py), so a reader can audit it without reading a prover.

verify.verify(certificate, spec) -> (ok, reason)          # bound, sos, numeric, empty
refutation.verify_refutation(certificate, spec) -> ...    # refutations and unbounded claims

Nothing is re-exported here: a package's __init__ runs on every import of its submodules.
"""
