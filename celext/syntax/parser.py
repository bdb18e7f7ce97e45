"""CEL's parser: recursive descent over `celext.syntax.lexer` tokens, building the parse tree cel-python's Lark grammar
builds (the same rule names, tokens and positions), at cel-go's limits.

Every consumer in celext walks that tree shape, so the parser reproduces it exactly: each operand is wrapped in
the grammar's levels (`expr > conditionalor > conditionaland > relation > addition > multiplication > unary >
member > primary`), binary operators nest to the left (`relation(relation_eq(relation(..)), addition(..))`), and
each node's meta spans its first to its last token, parentheses and brackets included. `true`/`false` tokens carry
no position, as cel-python's lexer callback leaves them; nodes that start or end with one have None there too.
Nodes are celext's own `Tree`s and `Token`s (celext.syntax.nodes: slotted, lark's API as celext reads it), their
meta `Meta` tuples (`Span` here).
Single-child wrappers share their child's Span object (same span; nothing mutates a parse tree's meta).

Limits, as cel-go's parser has them with its default options:
- `expression recursion limit exceeded: 250` when expressions nest more than 250 deep (cel-go's parse listener
  counts how deep the `expr` rule is entered: the whole expression, parentheses, list elements, arguments, ...);
- `max recursion depth exceeded` when a chain of selections, calls, indexes, relations, arithmetic or `?:`
  operators goes more than 250 deep (cel-go's AST builder counts those while it recurses).
Both errors carry no position, as in cel-go (`<input>:-1:0`).

As it builds each node the parser also builds the type checker's AST node for it (`celext.syntax.build.Factory`,
`Parsed.claim()`), so the checker does not walk the tree again to build it.

`parse_sized(text, lean=True)` builds the collapsed shape the compile stages walk instead (what
`celext.reference.collapse` makes of the full tree: no single-child levels, literals decoded into `const` nodes;
long list and map literals of literals one `const` each, celext.syntax.constants) and bounds the tree's height.

Beyond the Lark grammar: optional list elements and map entries (`[?x]`, `{?k: v}`, cel-go's OptionalTypes
syntax) are `opt_expr` nodes wrapping the element or key, and list and map literals may end with a comma.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import accumulate, pairwise, repeat
from operator import itemgetter
from typing import Any, NamedTuple

from celext import env
from celext.check.ast import BuildError, Expr, Ident
from celext.errors import CompileError
from celext.gcpause import gc_paused
from celext.syntax import build, constants, literals
from celext.syntax.build import Factory
from celext.syntax.lexer import OPERAND_END, Lexeme, tokenize
from celext.syntax.nodes import NO_POSITION, Meta, Token, Tree
from celext.values import CELEvalError

MAX_RECURSION_DEPTH = 250  # cel-go parser.MaxRecursionDepth default
RECURSION_LIMIT_EXCEEDED = f"expression recursion limit exceeded: {MAX_RECURSION_DEPTH}"
MAX_DEPTH_EXCEEDED = "max recursion depth exceeded"

_LITERALS = frozenset({"INT_LIT", "UINT_LIT", "FLOAT_LIT", "STRING_LIT", "MLSTRING_LIT", "BYTES_LIT", "BOOL_LIT",
                       "NULL_LIT"})
_RELATIONS = {"<": "relation_lt", "<=": "relation_le", ">": "relation_gt", ">=": "relation_ge", "==": "relation_eq",
              "!=": "relation_ne", "in": "relation_in"}
_ADDITIONS = {"+": "addition_add", "-": "addition_sub"}
_MULTIPLICATIONS = {"*": "multiplication_mul", "/": "multiplication_div", "%": "multiplication_mod"}

Node = Any  # Tree[Token]; `Any` keeps the hot paths free of casts
Built = tuple[Node, int, Expr]  # a parse-tree node, its chain depth as cel-go's AST builder counts it, its AST


Span = Meta  # a node's span (`celext.syntax.nodes.Meta`), built in one C call: `_new(Span, (...))`


class _Node(Tree[Any]):
    """A parse-tree node made with C-level construction (`_Node()`, then its slots set): a Python-level
    `__init__` is the larger part of making a node, and the parser makes one per token or more."""

    __slots__ = ()
    __init__ = object.__init__


def _node(data: str, children: list[Any], meta: Any) -> Node:
    """`Tree(data, children, meta)`, made faster (`_Node`)."""
    node = _Node()
    node.data = data
    node.children = children
    node.meta = meta
    return node


_new = tuple.__new__  # `_new(Span, (line, column, start_pos, end_line, end_column, end_pos))`
_new_str = str.__new__


def _token(kind: str, text: str, *position: int) -> Token:
    """A Token, made without a Python-level `Token.__new__` call. `position`: start_pos, line, column, end_line,
    end_column, end_pos (all None when not given)."""
    token: Any = _new_str(Token, text)
    token.type = kind
    token.value = text
    token.start_pos, token.line, token.column, token.end_line, token.end_column, token.end_pos = (
        position or _NO_TOKEN_POSITION)
    return token  # type: ignore[no-any-return]


_NO_TOKEN_POSITION = (None,) * 6


def _point(kind: str, text: str, start: int, line: int, column: int) -> Span:
    """The span of one token."""
    size = len(text)
    if kind not in ("MLSTRING_LIT", "BYTES_LIT"):
        return _new(Span, (line, column, start, line, column + size, start + size))
    newlines = text.count("\n")
    end_column = column + size if not newlines else size - text.rindex("\n")
    return _new(Span, (line, column, start, line + newlines, end_column, start + size))


def _span(first: Any, last: Any) -> Span:
    return _new(Span, (first[0], first[1], first[2], last[3], last[4], last[5]))


_NO_POSITION = NO_POSITION


_POSTFIX = frozenset({".", "[", "(", "{"})
# The levels an operand passes through on its way up, and the tokens after an atom that make a level do more
# than wrap it (an operator of that level or one binding tighter, or a postfix selection/index/call).
_CHAIN = ("conditionalor", "conditionaland", "relation", "addition", "multiplication", "unary", "member")
_BLOCKS = (*(frozenset(_POSTFIX | set(_MULTIPLICATIONS) | (set(_ADDITIONS) if level < 4 else set())
                       | (set(_RELATIONS) if level < 3 else set()) | ({"&&"} if level < 2 else set())
                       | ({"||"} if level < 1 else set())) for level in range(len(_CHAIN))),
           frozenset(_POSTFIX))  # (and `_LEAN_ATOM`: an operand of `_Parser.climb`, where only a postfix blocks)
_LEAN_ATOM = len(_CHAIN)
# The lean shape's binary operators by precedence (`_Parser.climb`), and the tree level each one builds.
_PRECEDENCE = {"||": 1, "&&": 2, **dict.fromkeys(_RELATIONS, 3), **dict.fromkeys(_ADDITIONS, 4),
               **dict.fromkeys(_MULTIPLICATIONS, 5)}
_OPERATORS = {**_RELATIONS, **_ADDITIONS, **_MULTIPLICATIONS}
_FUNCTIONS = {operator: build.BINARY[name] for operator, name in _OPERATORS.items()}  # (`in`: `@in`)
_LINKS = {"||": "_||_", "&&": "_&&_"}
_LEVELS = ("", "conditionalor", "conditionaland", "relation", "addition", "multiplication")
_ATOMS = _LITERALS | {"IDENT"}
_REVERSED = tuple(_CHAIN[level:][::-1] for level in range(len(_CHAIN)))


_QUOTED = frozenset({"STRING_LIT", "MLSTRING_LIT", "BYTES_LIT"})


def _literal(token: Token, meta: Span, lean: bool) -> Node:
    """A literal node; in the lean shape a `const` node holding its CEL value (as collapse() makes it). A literal
    cel-go's parser refuses is refused here, at the literal (its sign included), with cel-go's text: a number
    strconv cannot read (`invalid int literal`), a string or bytes literal whose escapes do not decode."""
    kind = token.type
    if lean:
        value = literals.value(token)
        if not isinstance(value, CELEvalError):
            return _node("const", [value], meta)
    if kind in literals.INVALID_NUMBER:
        problem = literals.number_error(kind, str(token))
        if problem is not None:
            raise CompileError(problem, line=token.line, column=token.column)
    if kind in _QUOTED and "\\" in token:
        problem = literals.escape_error(kind, str(token))
        if problem is not None:
            raise CompileError(problem, line=token.line, column=token.column)
    return _node("literal", [token], meta)


class _Parser:
    __slots__ = ("deepest", "depth", "doubtful", "index", "lean", "links", "locals", "macros", "make", "rebuild",
                 "text", "tokens", "values")

    def __init__(self, text: str, tokens: list[Lexeme], lean: bool) -> None:
        self.text = text
        self.tokens = tokens
        self.index = 0
        self.depth = 0  # how deep `expr` is entered now
        self.deepest = 0  # the deepest `expr` was entered
        self.links = 0  # `&&`/`||` links and unary operators: tree levels cel-go's chain depth does not count
        self.lean = lean  # build the collapsed shape (no single-child grammar levels, literals as `const`)
        self.macros: list[Node] = []  # the member calls named like a macro, for the refusals (Parsed.macros)
        self.doubtful: list[Node] = []  # those of them whose form the AST builder did not vouch for
        # literal values by text, decoded once (values are immutable), with the kind and value of their Literal
        self.values: dict[str, tuple[Any, str | None, Any]] = {}
        self.make = Factory(text) if lean else _NO_AST  # the checker's AST, node by node as the tree is built
        self.rebuild = False  # a BuildError met: the AST is left to `build()`, which finds the first one
        self.locals: list[str] = []  # the variables of the macro calls and bindings being parsed (`.x` finds them)

    def variables(self, method: str, receiver: Node) -> tuple[str, ...]:
        """The names a macro call (or `cel.bind`) whose arguments start here binds: its leading `name,`
        arguments (one or two), looked at ahead of parsing them."""
        if method == "bind":
            # (imported here: `celext.syntax.tree` is how most callers enter the package, and a module-level import
            # would load it from inside the package's start-up, which `-X importtime` then logs as two imports)
            from celext.syntax.tree import simple_ident

            if simple_ident(receiver) != "cel":
                return ()
        tokens, at = self.tokens, self.index
        names: list[str] = []
        while len(names) < (1 if method == "bind" else 2) and tokens[at][0] == "IDENT" and tokens[at + 1][0] == ",":
            names.append(tokens[at][1])
            at += 2
        return tuple(names)

    def local(self, at: int) -> bool:
        """Is tokens[at] (after a leading dot) a variable of an enclosing macro call or binding? cel-go finds
        `.x` in every scope with the dot dropped (env.LookupIdent)."""
        kind, name = self.tokens[at][0], self.tokens[at][1]
        return kind == "IDENT" and name in self.locals and self.tokens[at + 1][0] != "("

    def refused(self, node: Node) -> Expr:
        """An AST stand-in where a node has none (a BuildError, a construct the checker does not take)."""
        self.rebuild = True
        return self.make.ident("", _offset(node))

    def leaf(self, node: Node) -> Expr:
        """The Literal of a `const` or `literal` node."""
        return self.make.const(node) if node.data == "const" else self.make.literal(node)

    # ---- tokens

    def peek(self) -> str:
        return self.tokens[self.index][0]  # the list ends with an `$END` token, never read past

    def take(self) -> Lexeme:
        lexeme = self.tokens[self.index]
        if lexeme[0] != "$END":
            self.index += 1
        return lexeme

    def expect(self, kind: str) -> Span:
        lexeme = self.tokens[self.index]
        if lexeme[0] != kind:
            raise self.unexpected(lexeme)
        self.index += 1
        return _point(*lexeme)

    def unexpected(self, lexeme: Lexeme) -> CompileError:
        if lexeme[0] == "$ESCAPE":  # cel-go's lexer (ANTLR) on a string with an escape outside ESC_SEQ
            shown = lexeme[1].replace("\t", "\\t")
            return CompileError(f"Syntax error: token recognition error at: '{shown}'", line=lexeme[3],
                                column=lexeme[4])
        if lexeme[0] == "$END":
            lines = self.text.splitlines() or [""]
            return CompileError("Syntax error: unexpected end of input", line=len(lines), column=len(lines[-1]) + 1)
        rest = self.text[lexeme[2]:lexeme[2] + 10].split()
        return CompileError(f"Syntax error: unexpected {rest[0] if rest else lexeme[1]!r}",
                            line=lexeme[3], column=lexeme[4])

    def ident(self) -> tuple[Token, Span]:
        kind, text, start, line, column = lexeme = self.tokens[self.index]
        if kind != "IDENT":
            raise self.unexpected(lexeme)
        self.index += 1
        return _token("IDENT", text, start, line, column, line, column + len(text), start + len(text)), \
            _point(*lexeme)

    def atom(self, level: int) -> tuple[Node, Expr] | None:
        """Fast path: a lone literal or identifier as a `_CHAIN[level]` node (every level wrapping the next),
        and its AST, or None when more than an atom follows (then the levels parse it one by one)."""
        tokens = self.tokens
        lexeme = tokens[self.index]
        kind = lexeme[0]
        if kind not in _ATOMS or tokens[self.index + 1][0] in _BLOCKS[level]:
            return None
        self.index += 1
        _, text, start, line, column = lexeme
        lean = self.lean
        if lean and kind != "IDENT":  # a literal's value, without the token the full shape keeps
            known = self.values.get(text)  # (the text tells the kind: one value per text)
            if known is None:
                known = self.values[text] = self.make.scalar(literals.value_of(kind, text))
            value, scalar, plain = known
            if not isinstance(value, CELEvalError):
                if kind in ("MLSTRING_LIT", "BYTES_LIT"):
                    meta = _point(*lexeme)
                else:
                    size = len(text)
                    meta = _new(Span, (line, column, start, line, column + size, start + size))
                const = _Node()  # (`_node()` inline, here and below: the hottest nodes)
                const.data, const.children, const.meta = "const", [value], meta
                if kind == "BOOL_LIT":
                    # The const node has the literal's position (cel-go reports errors at it, and an AST built
                    # again from the tree finds it there); the wrapper has none, as cel-python's lexer leaves
                    # true/false, so the spans of the nodes around it are cel-python's.
                    meta = _NO_POSITION
                built = self.make.const(const) if scalar is None else self.make.lit(scalar, plain, start, const)
                node = _Node()
                node.data, node.children, node.meta = "primary", [const], meta
                return node, built
        if kind == "BOOL_LIT":
            meta = _NO_POSITION
            node = _literal(_token("BOOL_LIT", text), meta, lean)
        else:
            meta = _point(*lexeme)
            token = _token(kind, text, start, line, column, meta.end_line, meta.end_column, meta.end_pos)
            node = _node("ident", [token], meta) if kind == "IDENT" else _literal(token, meta, lean)
        built = self.make.ident_node(node) if kind == "IDENT" else self.leaf(node)
        if kind == "BOOL_LIT":
            built.offset = start  # the tree's token has no position (cel-python's), the AST node cel-go's offset
        node = _node("primary", [node], meta)
        if lean:
            return node, built
        for name in _REVERSED[level]:
            node = _node(name, [node], meta)
        return node, built

    # ---- grammar levels; each returns (tree, chain depth as cel-go's AST builder counts it)

    def expr(self) -> Built:
        self.depth += 1
        if self.depth > MAX_RECURSION_DEPTH:
            raise CompileError(RECURSION_LIMIT_EXCEEDED)
        self.deepest = max(self.deepest, self.depth)
        found = self.atom(0)
        depth = 0
        if found is None:
            condition, depth, built = self.conditionalor()
        else:
            condition, built = found
        if self.tokens[self.index][0] == "?":
            self.index += 1
            then, then_depth, then_built = self.conditionalor()
            self.expect(":")
            otherwise, other_depth, other_built = self.expr()
            node = _node("expr", [condition, then, otherwise], _span(condition.meta, otherwise.meta))
            built = self.make.conditional(node, built, then_built, other_built)
            depth = 1 + max(depth, then_depth, other_depth)
        else:
            node = condition if self.lean else _node("expr", [condition], condition.meta)
        self.depth -= 1
        return node, depth, built

    def conditionalor(self) -> Built:
        if self.lean:
            return self.climb(1)
        return self._logical("conditionalor", "||", 1, self.conditionaland)

    def climb(self, lowest: int) -> Built:
        """Lean shape: an operand and the binary operators of precedence `lowest` and above after it, by
        precedence climbing (`_PRECEDENCE`): the tree, depths and AST the grammar's levels build (`_logical`,
        `_binary`: left-associative, each level's operands parsed at the next), without a call per level per
        operand."""
        tokens = self.tokens
        index = self.index
        if tokens[index][0] in _ATOMS and tokens[index + 1][0] not in _POSTFIX:  # (what atom() takes)
            node, built = self.atom(_LEAN_ATOM)  # type: ignore[misc]
            depth = 0
        else:
            node, depth, built = self.unary()
        while True:
            kind = tokens[self.index][0]
            precedence = _PRECEDENCE.get(kind, 0)
            if precedence < lowest:
                return node, depth, built
            if precedence < 3:  # `||`, `&&`
                self.index += 1
                right, right_depth, right_built = self.climb(precedence + 1)
                link = _Node()
                meta = node.meta
                link.data, link.children, link.meta = _LEVELS[precedence], [node, right], _span(meta, right.meta)
                node = link
                end = meta[5] or 0  # (`make.logical`, inline: the operator's offset is its first match after the
                at = self.text.find(kind, end)  # left operand, as build() finds it)
                built = self.make.call(_LINKS[kind], at if at >= 0 else end, [built, right_built], None, node)
                depth = max(depth, right_depth)
                self.links += 1
            else:
                _, text, start, line, column = tokens[self.index]
                self.index += 1
                right, right_depth, right_built = self.climb(precedence + 1)
                meta = node.meta
                head = _Node()
                head.data, head.children = _OPERATORS[kind], [node]
                head.meta = _new(Span, (meta[0], meta[1], meta[2], line, column + len(text), start + len(text)))
                node = _Node()
                node.data, node.children, node.meta = _LEVELS[precedence], [head, right], _span(meta, right.meta)
                built = self.make.call(_FUNCTIONS[kind], start, [built, right_built], None, node)  # (at the operator)
                depth = 1 + max(depth, right_depth)

    def conditionaland(self) -> Built:
        return self._logical("conditionaland", "&&", 2, self.relation)

    def _logical(self, level: str, operator: str, next_level: int, operand: Any) -> Built:
        left, depth, built = self.operand(next_level, operand)
        node = left if self.lean else _node(level, [left], left.meta)
        while self.tokens[self.index][0] == operator:
            self.index += 1
            right, right_depth, right_built = self.operand(next_level, operand)
            node = _node(level, [node, right], _span(node.meta, right.meta))
            built = self.make.logical(node, built, right_built)
            depth = max(depth, right_depth)
            self.links += 1
        return node, depth, built

    def operand(self, level: int, parse: Any) -> Built:
        tokens, index = self.tokens, self.index
        if tokens[index][0] in _ATOMS and tokens[index + 1][0] not in _BLOCKS[level]:  # (what atom() takes)
            node, built = self.atom(level)  # type: ignore[misc]
            return node, 0, built
        parsed: Built = parse()
        return parsed

    def relation(self) -> Built:
        return self._binary("relation", _RELATIONS, 3, self.addition)

    def addition(self) -> Built:
        return self._binary("addition", _ADDITIONS, 4, self.multiplication)

    def multiplication(self) -> Built:
        return self._binary("multiplication", _MULTIPLICATIONS, 5, self.unary)

    def _binary(self, level: str, operators: dict[str, str], next_level: int, operand: Any) -> Built:
        left, depth, built = self.operand(next_level, operand)
        node = left if self.lean else _node(level, [left], left.meta)
        while True:
            name = operators.get(self.tokens[self.index][0])
            if name is None:
                return node, depth, built
            op = _point(*self.take())
            right, right_depth, right_built = self.operand(next_level, operand)
            head = _node(name, [node], _span(node.meta, op))
            node = _node(level, [head, right], _span(node.meta, right.meta))
            built = self.make.binary(node, built, right_built)
            depth = 1 + max(depth, right_depth)

    def unary(self) -> Built:
        tokens = self.tokens
        kind = tokens[self.index][0]
        if kind in ("!", "-"):
            # cel-go's grammar reads a run of one operator as one unary (`(ops+='!')+ member`) and its parser
            # keeps one operator of an odd run and none of an even one: `!!x` is `x` (so `!!1 == 1` checks), and
            # a thousand `!` are one tree level, not a thousand.
            run = 1
            while tokens[self.index + run][0] == kind:
                run += 1
            op = _point(*tokens[self.index])
            self.index += run
            inner, depth, built = self.unary()
            if run % 2 == 0:
                return inner, depth, built
            self.links += 1
            sign: Node = _node("unary_not" if kind == "!" else "unary_neg", [], op)
            node = _node("unary", [sign, inner], _span(op, inner.meta))
            return node, depth, self.make.unary(node, built)
        node, depth, built = self.member()
        return (node if self.lean else _node("unary", [node], node.meta)), depth, built

    def member(self) -> Built:
        first, depth, built = self.primary()
        lean = self.lean
        make = self.make
        tokens = self.tokens
        node = first if lean else _node("member", [first], first.meta)
        while True:
            kind = tokens[self.index][0]
            if kind == ".":
                index = self.index + 1
                lexeme = tokens[index]
                optional = lexeme[0] == "?"
                if optional:
                    index += 1
                    lexeme = tokens[index]
                name_kind, text, start, line, column = lexeme
                if name_kind != "IDENT":
                    self.index = index
                    raise self.unexpected(lexeme)
                self.index = index + 1
                end_column, end_pos = column + len(text), start + len(text)  # (`ident()`, inline)
                name = _token("IDENT", text, start, line, column, line, end_column, end_pos)
                name_meta = _new(Span, (line, column, start, line, end_column, end_pos))
                if not optional and tokens[self.index][0] == "(":
                    self.index += 1
                    scoped = self.variables(text, node) if text in env.MACRO_NAMES or text == "bind" else ()
                    self.locals += scoped
                    args, args_depth, arg_built, _ = self.exprlist(")")
                    del self.locals[len(self.locals) - len(scoped):]
                    close = self.expect(")")
                    inner = _node("member_dot_arg", [node, name, *args], _span(node.meta, close))
                    try:
                        built = make.member_call(inner, built, arg_built)
                    except BuildError:
                        built = self.refused(inner)
                    if text in env.MACRO_NAMES:  # (the plain text: a Token compares in Python)
                        self.macros.append(inner)
                        if not _well_formed(text, arg_built):
                            self.doubtful.append(inner)
                    depth = 1 + max(depth, args_depth)
                elif optional:
                    inner = _node("member_dot_opt", [node, name], _span(node.meta, name_meta))
                    built = make.member_dot_opt(inner, built)
                    depth += 1
                else:
                    inner = _node("member_dot", [node, name], _span(node.meta, name_meta))
                    built = make.member_dot(inner, built)
                    depth += 1
            elif kind == "[":
                self.index += 1
                optional = self.tokens[self.index][0] == "?"
                if optional:
                    self.index += 1
                index, index_depth, index_built = self.expr()
                close = self.expect("]")
                inner = _node("member_index_opt" if optional else "member_index", [node, index],
                             _span(node.meta, close))
                built = make.member_index(inner, built, index_built)
                depth = 1 + max(depth, index_depth)
            elif kind == "{":
                self.index += 1
                fields, fields_depth = self.fieldinits()
                close = self.expect("}")
                inner = _node("member_object", [node, *fields], _span(node.meta, close))
                built = self.refused(inner)  # (message construction: refused before type checking)
                depth = max(depth, fields_depth)
            else:
                return node, depth, built
            node = inner if lean else _node("member", [inner], inner.meta)

    def primary(self) -> Built:
        kind, text, start, line, column = lexeme = self.take()
        make = self.make
        if kind in _LITERALS:
            if kind == "BOOL_LIT":  # cel-python's lexer callback re-creates these tokens without a position
                # (in the lean shape the const node has the literal's position, as in `operand` above)
                literal = _literal(_token("BOOL_LIT", text), _point(*lexeme) if self.lean else _NO_POSITION, self.lean)
                built = self.leaf(literal)
                built.offset = start  # the AST node has cel-go's offset
                return _node("primary", [literal], _NO_POSITION), 0, built
            meta = _point(*lexeme)
            token = _token(kind, text, start, line, column, meta.end_line, meta.end_column, meta.end_pos)
            literal = _literal(token, meta, self.lean)
            return _node("primary", [literal], meta), 0, self.leaf(literal)
        if kind == "IDENT":
            token = _token("IDENT", text, start, line, column, line, column + len(text), start + len(text))
            if self.tokens[self.index][0] == "(":
                self.index += 1
                args, depth, arg_built, _ = self.exprlist(")")
                close = self.expect(")")
                meta = _span(_point(*lexeme), close)
                call = _node("ident_arg", [token, *args], meta)
                try:
                    built = make.global_call(call, arg_built)
                except BuildError:
                    built = self.refused(call)
                return _node("primary", [call], meta), depth, built
            meta = _point(*lexeme)
            ident = _node("ident", [token], meta)
            return _node("primary", [ident], meta), 0, make.ident_node(ident)
        if kind == "." and (_rooted(self.tokens, self.index) or self.local(self.index)):
            # `.name`: cel-go resolves the name from the root scope, which without a container is the name itself
            # (a comprehension variable too: env.LookupIdent searches every scope with the dot dropped)
            return self.primary()
        if kind == ".":  # a name cel-go does not resolve: the refusal pass words it (undeclared reference)
            dot = _point(*lexeme)
            name, name_meta = self.ident()
            if self.tokens[self.index][0] == "(":
                self.index += 1
                args, depth, _, _ = self.exprlist(")")
                close = self.expect(")")
                meta = _span(dot, close)
                call = _node("dot_ident_arg", [name, *args], meta)
                return _node("primary", [call], meta), depth, self.refused(call)  # (refused before type checking)
            meta = _span(dot, name_meta)
            ident = _node("dot_ident", [name], meta)
            return _node("primary", [ident], meta), 0, self.refused(ident)
        if kind == "(":
            inner, depth, built = self.expr()
            meta = _span(_point(*lexeme), self.expect(")"))
            return _node("primary", [_node("paren_expr", [inner], meta)], meta), depth, built
        if kind == "[":
            if self.lean:
                constant = self.constant(lexeme, constants.constant_list)
                if constant is not None:
                    return constant, 0, make.const(constant.children[0])
            items, depth, item_built, optional = self.exprlist("]", trailing_comma=True)
            meta = _span(_point(*lexeme), self.expect("]"))
            listed = _node("list_lit", items, meta)
            return _node("primary", [listed], meta), depth, make.list_lit(listed, item_built, optional)
        if kind == "{":
            if self.lean:
                constant = self.constant(lexeme, constants.constant_map)
                if constant is not None:
                    return constant, 0, make.const(constant.children[0])
            entries, depth, entry_built, optional = self.mapinits()
            meta = _span(_point(*lexeme), self.expect("}"))
            mapped = _node("map_lit", entries, meta)
            return _node("primary", [mapped], meta), depth, make.map_lit(mapped, entry_built, optional)
        if kind != "$END":
            self.index -= 1
        raise self.unexpected(lexeme)

    def constant(self, opening: Lexeme, scan: Callable[[list[Lexeme], int], tuple[Any, int] | None]) -> Node | None:
        """Lean shape only: a list or map literal of literals (celext.syntax.constants), after its opening
        bracket, as one `const` node holding its value; None, with nothing consumed, for any other literal."""
        if self.depth + 1 > MAX_RECURSION_DEPTH:
            return None  # (an element one level too deep is the recursion error the element-wise parse raises)
        found = scan(self.tokens, self.index)
        if found is None:
            return None
        value, close = found
        self.index = close + 1
        self.deepest = max(self.deepest, self.depth + 1)
        meta = _span(_point(*opening), _point(*self.tokens[close]))
        return _node("primary", [_node("const", [value], meta)], meta)

    def exprlist(self, close: str, *, trailing_comma: bool = False) -> tuple[list[Node], int, list[Expr],
                                                                              frozenset[int]]:
        """`[exprlist]` before `close`: no child when empty, else one exprlist node; with the items' ASTs and
        the indexes of optional items (`[?x]`, list literals only)."""
        if self.tokens[self.index][0] == close:
            return [], 0, [], frozenset()
        items: list[Node] = []
        built: list[Expr] = []
        optional: list[int] = []
        depth = 0
        while True:
            if trailing_comma and self.tokens[self.index][0] == "?":  # `[?x]`: an optional element (list literals only)
                mark = _point(*self.take())
                inner, item_depth, item_built = self.expr()
                item = _node("opt_expr", [inner], _span(mark, inner.meta))
                optional.append(len(items))
            else:
                item, item_depth, item_built = self.expr()
            items.append(item)
            built.append(item_built)
            depth = max(depth, item_depth)
            if self.tokens[self.index][0] != ",":
                break
            self.index += 1
            if trailing_comma and self.tokens[self.index][0] == close:
                break
        return [_node("exprlist", items, _span(items[0].meta, items[-1].meta))], depth, built, frozenset(optional)

    def mapinits(self) -> tuple[list[Node], int, list[Expr], frozenset[int]]:
        """`[mapinits]` before `}`, with the keys' and values' ASTs in turn and the indexes of optional entries."""
        if self.peek() == "}":
            return [], 0, [], frozenset()
        entries: list[Node] = []
        built: list[Expr] = []
        optional: list[int] = []
        depth = 0
        while True:
            if self.peek() == "?":  # `{?k: v}`: an optional entry
                mark = _point(*self.take())
                inner, key_depth, key_built = self.expr()
                key = _node("opt_expr", [inner], _span(mark, inner.meta))
                optional.append(len(entries) // 2)
            else:
                key, key_depth, key_built = self.expr()
            self.expect(":")
            value, value_depth, value_built = self.expr()
            entries += (key, value)
            built += (key_built, value_built)
            depth = max(depth, key_depth, value_depth)
            if self.peek() != ",":
                break
            self.index += 1
            if self.peek() == "}":
                break
        return ([_node("mapinits", entries, _span(entries[0].meta, entries[-1].meta))], depth, built,
                frozenset(optional))

    def fieldinits(self) -> tuple[list[Node], int]:
        if self.peek() == "}":
            return [], 0
        fields: list[Node] = []
        depth = 0
        first: Span | None = None
        while True:
            name, name_meta = self.ident()
            first = first or name_meta
            self.expect(":")
            value, value_depth, _ = self.expr()
            fields += (name, value)
            depth = max(depth, value_depth)
            if self.peek() != ",":
                break
            self.index += 1
            if self.peek() == "}":
                break
        return [_node("fieldinits", fields, _span(first, fields[-1].meta))], depth


def _well_formed(method: str, args: list[Expr]) -> bool:
    """Whether a member call named like a macro passes the refusals' form check (`refusals.check_macros`),
    told from its arguments' ASTs: an argument count that is no form of the macro is not checked there; else
    the arguments naming its iteration variables must be distinct plain identifiers (an identifier's AST is an
    Ident exactly when its tree is one, parentheses or not; a refused construct's stand-in has no name)."""
    count = env.MACRO_FORMS[method].get(len(args))
    if count is None:
        return True
    names = {arg.name for arg in args[:count] if type(arg) is Ident}
    return len(names) == count and "" not in names


class _NoAst(Factory):
    """A Factory that builds nothing: cel-python's full shape (`parse()`, for analysis and lint) needs no AST."""

    __slots__ = ()

    def _none(self, *_: Any) -> Expr:
        return _PLACEHOLDER

    ident = ident_node = const = literal = conditional = logical = binary = unary = _none  # type: ignore[assignment]
    member_call = member_dot = member_dot_opt = member_index = global_call = list_lit = map_lit = _none  # type: ignore[assignment]


_PLACEHOLDER = Expr(0, 0)
_NO_AST = _NoAst("")


def _offset(node: Node) -> int:
    return getattr(node.meta, "start_pos", 0) or 0


def parse(text: str) -> Tree[Token]:
    """The parse tree of a CEL expression. Raises CompileError (syntax errors with line and column)."""
    return parse_sized(text, lean=False).tree


class Parsed(NamedTuple):
    """A parse tree, a bound on its height in nesting levels (how much recursion headroom a walk over it needs),
    whether it may hold a construct `celext.syntax.refusals` refuses by name or shape (False lets the compile
    skip that walk), its member calls named like a macro, those of them whose form the refusals must check
    (`check_macros`: the others' ASTs show a well-formed call) and the checker's AST the parser built along
    (`claim()`)."""

    tree: Tree[Token]
    height: int
    refusable: bool
    macros: tuple[Tree[Token], ...]
    doubtful: tuple[Tree[Token], ...]
    ast: list[Expr]  # one AST; none in the full shape, or when the parser met a BuildError (`build()` finds it)

    def claim(self) -> Expr | None:
        """The AST built with the tree, to its first caller only (the type checker completes some nodes: a
        shared Parsed must not hand one AST to two checks); None after, and when the parser met a BuildError.
        Without it, `celext.check.ast.build(tree, text)` makes the same AST from the tree."""
        try:
            return self.ast.pop()
        except IndexError:
            return None


# Names `.name` resolves to as `name` would: the DRA `device`, CEL's type denotations (the dotted ones too:
# `.net.IP`), and (followed by `(`) the declared global functions but the `has` macro, which cel-go does not expand
# after a dot.
_ROOT_NAMES = frozenset({"device", "bool", "int", "uint", "double", "string", "bytes", "list", "map", "null_type",
                         "type"})


def _rooted(tokens: list[Lexeme], at: int) -> bool:
    """Does the leading-dot name at tokens[at] resolve in the DRA environment (`.device`, `.int`, `.size(x)`,
    `.strings.quote(s)`)? A namespace (`optional`, `strings`, ...) only with the call of one of its functions."""
    kind, name = tokens[at][0], tokens[at][1]
    if kind != "IDENT":
        return False
    after = tokens[at + 1][0]
    if after == "(":
        return name in env.GLOBAL_NAMES and name != "has"
    if name in env.NAMESPACES and after == "." and tokens[at + 2][0] == "IDENT" and tokens[at + 3][0] == "(":
        return f"{name}.{tokens[at + 2][1]}" in env.GLOBAL_NAMES
    return name in _ROOT_NAMES or _spells_type_name(tokens, at)


def _spells_type_name(tokens: list[Lexeme], at: int) -> bool:
    """Do the tokens from `at` start with a dotted type name (`.net.IP`, `.google.protobuf.Timestamp`)?"""
    name = tokens[at][1]
    while any(t.startswith(name + ".") for t in env.DOTTED_TYPE_NAMES):
        if tokens[at + 1][0] != "." or tokens[at + 2][0] != "IDENT":
            return False
        at += 2
        name = f"{name}.{tokens[at][1]}"
        if name in env.DOTTED_TYPE_NAMES:
            return True
    return False


# Identifiers a refusal can start from: unsupported names (macro calls are found as the parser builds them).
_REFUSAL_NAMES = frozenset(env.UNSUPPORTED)


def _refusable(tokens: list[Lexeme]) -> bool:
    """Whether the tokens may form a construct the refusals name: an unsupported identifier, a leading dot (`.`
    where an operand starts: `primary` builds `dot_ident` only there) or message construction (`{` right after
    an operand: the member loop builds `member_object` only there). Scans in C where it can: a long list of
    literals costs next to nothing."""
    if not _REFUSAL_NAMES.isdisjoint(map(itemgetter(1), tokens)):  # (an operator or literal is never one)
        return True
    kinds = list(map(itemgetter(0), tokens))
    if kinds[0] == ".":
        return True
    for before, mark in set(pairwise(kinds)):  # (each pair of neighbouring kinds once; a set made in C)
        if (mark == "." and before not in OPERAND_END) or (mark == "{" and before in OPERAND_END):
            return True
    return False


def lex(text: str) -> list[Lexeme]:
    """The tokens `parse_tokens` reads: `tokenize(text)` and an `$END` token."""
    tokens = tokenize(text)
    tokens.append(("$END", "", len(text), 0, 0))
    return tokens


# The parser spends up to about 7 Python frames per level of bracket nesting (`(`, `[`, `{`: expr, climb, unary,
# member, primary or exprlist, ...). A text nested deeper than DEEP_NESTING is parsed with recursion headroom
# from the start (celext.syntax.grammar) rather than failing with RecursionError part-way and starting over.
DEEP_NESTING = 100
_NESTING = {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}


def nesting(tokens: list[Lexeme]) -> int:
    """How deep the tokens' brackets nest (at most; unbalanced brackets are the parser's to report). In C but
    for the generator-free maps: a 10 KiB text costs a fraction of a millisecond."""
    return max(accumulate(map(_NESTING.get, map(itemgetter(0), tokens), repeat(0))), default=0)


def parse_sized(text: str, *, lean: bool) -> Parsed:
    """The parse tree in cel-python's shape or, `lean`, in the collapsed shape the engines walk (no
    single-child grammar levels, literals as `const` nodes: what `celext.reference.collapse` makes of the
    full tree, built directly), and a bound on the tree's height in nesting levels (how much recursion
    headroom a walk over it needs). Raises CompileError (syntax errors with line and column)."""
    return parse_tokens(text, lex(text), lean)


def parse_tokens(text: str, tokens: list[Lexeme], lean: bool) -> Parsed:
    """`parse_sized` on the tokens `lex(text)` made."""
    parser = _Parser(text, tokens, lean)
    # A 10 KiB expression is tens of thousands of tree nodes, none garbage: cyclic collections while they are
    # created only cost time (about a third of it). (Within a compile, the compile's pause already holds.)
    tree, depth, built = gc_paused(parser.expr)
    if parser.index < len(tokens) - 1:
        raise parser.unexpected(tokens[parser.index])
    if depth > MAX_RECURSION_DEPTH:
        raise CompileError(MAX_DEPTH_EXCEEDED)
    # Levels: cel-go's chain depth, plus up to three per nesting (`primary > list_lit > exprlist`, ...), plus
    # the `&&`/`||` links and unary operators it does not count (all of them: an upper bound).
    return Parsed(tree, depth + 3 * parser.deepest + parser.links, _refusable(tokens), tuple(parser.macros),
                  tuple(parser.doubtful),
                  [] if parser.rebuild or not lean else [built])
