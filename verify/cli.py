"""Kept for old imports: the command line lives in :mod:`verify.commands`."""

from verify.commands import main

__all__ = ["main"]
