"""celext's static type checker: cel-go's checker over celext's parse tree, in the Kubernetes DRA environment.

- `celext.check.ast`: cel-go's AST (macros expanded), which the parser builds as it parses (`celext.syntax.build`);
- `celext.check.types`: CEL types, assignability and type-parameter substitution;
- `celext.check.checker`: `check(expr) -> CheckedExpr` (the type of every node, the overload ids of every call).

Nothing is imported here: `celext.overloads` imports `celext.check.types`, and the checker imports the table.
"""
