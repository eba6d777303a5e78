"""Helpers for the engine's crash, concurrency and differential tests (workloads and child processes)."""
