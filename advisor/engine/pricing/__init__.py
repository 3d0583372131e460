"""The pricing model: what a price is (`kind`: the price kind, everything of a price but its
amount that its charge depends on) and what it charges (`charges`: the exact, fast and
lower-bound forms of one charge, side by side). The package imports nothing of the engine's
ranking, so that ranking, prune and plans all read one model."""
