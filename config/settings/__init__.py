"""Settings package: base.py holds everything; dev, test and prod adjust it."""
