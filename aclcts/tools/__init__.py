"""Command-line tools: benchmarks, the kill matrix, the new-op scaffold, the single-op JSON."""
