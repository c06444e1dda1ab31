"""The float side of a check: the multistart search, the high-precision re-check of its points,
the claim rules that turn them into a verdict, and the sign components the search covers. None of
it is a proof; a confirmed verdict's certificate comes from the provers, checked by the checker."""
