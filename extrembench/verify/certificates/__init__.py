"""Certificates for confirmed answers (docs/problem-format.md, "Certificates for confirmed answers").

certify(problem, witness) -> dict     # sos, else bound, else numeric
verify(certificate, spec) -> (ok, reason)
"""

from extrembench.verify.certificates.certify import certificate_json, certify
from extrembench.verify.certificates.document import VERIFIER_VERSION, canonical
from extrembench.verify.certificates.verify import verify

__all__ = ["certify", "verify", "canonical", "certificate_json", "VERIFIER_VERSION"]
