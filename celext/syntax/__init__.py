"""The syntax stage: source text to the parse tree with positions (cel-go's `parser` package).

`lexer` tokens, `parser` the recursive-descent parser at cel-go's limits, `nodes` the parse tree's classes,
`literals` literal values, `grammar` the cached `parse()` with CompileError texts (`lalr`: the Lark reference
parser, for tests and benchmarks), `tree` positions and shapes of parse-tree nodes, `build` the checker's AST
(made by the parser node by node), `rewrite` the `cel.bind`/namespace rewrites, `refusals` what celext refuses,
`headroom` the recursion headroom for walks over deeply nested trees."""

from celext.syntax.grammar import MAX_LENGTH, parse
from celext.syntax.parser import RECURSION_LIMIT_EXCEEDED

__all__ = ["MAX_LENGTH", "RECURSION_LIMIT_EXCEEDED", "parse"]
