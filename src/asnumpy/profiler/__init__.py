"""asnumpy.profiler (lead writes this)."""
