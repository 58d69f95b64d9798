"""Judging results: precision policies and metrics, the compare-with-reference decorator, the golden store."""
