"""Build side: problem files → validated, certified problem tables (translate, convert, validate, vary, ingest)."""
