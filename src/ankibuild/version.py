"""The version, in a module of its own: the cache keys depend on it, and it imports nothing."""

__version__ = "0.1.0"
