"""Driving a case through a backend: backend selection, the documented flow, the executor, resource tracking, isolation, models."""
