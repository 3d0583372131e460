"""The advisor's arithmetic: memory, placement, time and cost. Pure Python, no Django."""
