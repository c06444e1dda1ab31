"""Verifying answers by computation: the search, exact re-checks, refutations, certificates and the trusted checker."""
