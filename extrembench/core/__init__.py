"""The small core every stage stands on: atomic files, Parquet artifacts and their schemas, provenance, the typed config, untrusted YAML, shards."""
