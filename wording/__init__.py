"""How the site says things, in English and Chinese: the ground floor that the catalogue, the
advisor and the API all read (docs/architecture.md).

`choices`: the label of every vocabulary value (advisor/engine/vocab.py) and the model fields'
choices built from them. `messages`: the one rule per kind of figure (a total, a listed price,
hours, sizes, rates) and the one renderer of the engine's messages (`render`, `as_json`).
"""
