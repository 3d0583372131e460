"""Watches on an answer: a saved scenario's #1 and cost, or an offering's prices, checked after
price writes and feed runs, with an email and/or a signed webhook when they change."""
