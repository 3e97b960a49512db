"""Array creation (filled in below)."""
__all__ = []
