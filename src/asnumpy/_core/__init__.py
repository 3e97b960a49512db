"""The front end's core: the ndarray, transfers and array creation."""
