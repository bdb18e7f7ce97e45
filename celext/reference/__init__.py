"""The reference engine: the tree-walking evaluator (cel-python's interpreter with celext's seams), its
macros, and the CEL `device` value built from the wire form (`to_device`). The oracle the compiled engine is
tested against."""
