"""JSON run reports: writing, diffing and merging."""
