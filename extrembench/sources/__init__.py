"""Building problem sets: translate, convert, formalize, ingest official datasets, download, vary."""
