"""The typed AST the parser builds: small classes with source positions.

Every node has `line`, `col` (1-based) and `end_line`, `end_col`. Statements also get
`text`, their source line(s), which explanations quote ("`z = 2*f` on line 5").
"""
from __future__ import annotations


class Node:
    __slots__ = ("line", "col", "end_line", "end_col")
    fields: tuple = ()

    def __init__(self, *args, pos=None):
        for name, value in zip(self.fields, args):
            setattr(self, name, value)
        self.line, self.col, self.end_line, self.end_col = pos or (0, 0, 0, 0)

    def __repr__(self):
        inner = ", ".join(f"{f}={getattr(self, f)!r}" for f in self.fields)
        return f"{type(self).__name__}({inner})"


class Stmt(Node):
    __slots__ = ("text",)


def _node(name, fields, base=Node):
    return type(name, (base,), {"__slots__": fields, "fields": fields})


# Expressions
Name = _node("Name", ("id",))
Const = _node("Const", ("value",))
FString = _node("FString", ("parts",))           # parts: str | (expr, conversion, spec parts)
ListExpr = _node("ListExpr", ("elts",))
TupleExpr = _node("TupleExpr", ("elts",))
SetExpr = _node("SetExpr", ("elts",))
DictExpr = _node("DictExpr", ("keys", "values"))
Attr = _node("Attr", ("obj", "name"))
Subscript = _node("Subscript", ("obj", "index"))
SliceExpr = _node("SliceExpr", ("lower", "upper", "step"))
Call = _node("Call", ("func", "args", "kwargs"))     # args: [expr | Starred]; kwargs: [(name|None, expr)]
Starred = _node("Starred", ("value",))
BinOp = _node("BinOp", ("op", "left", "right"))
UnaryOp = _node("UnaryOp", ("op", "operand"))
BoolOp = _node("BoolOp", ("op", "values"))
Not = _node("Not", ("operand",))
Compare = _node("Compare", ("left", "ops", "rights"))
IfExp = _node("IfExp", ("test", "body", "orelse"))
Lambda = _node("Lambda", ("params", "body"))
ListComp = _node("ListComp", ("elt", "target", "iter", "cond"))
EllipsisExpr = _node("EllipsisExpr", ())

# Statements
ExprStmt = _node("ExprStmt", ("value",), Stmt)
Assign = _node("Assign", ("targets", "value"), Stmt)
AugAssign = _node("AugAssign", ("target", "op", "value"), Stmt)
Print = _node("Print", ("values",), Stmt)          # the Python 2 statement `print x, y`
Backward = _node("Backward", ("target", "kwargs"), Stmt)
Expect = _node("Expect", ("kind", "value", "tolerance"), Stmt)   # kind: true | error | freed | retained
GraphStmt = _node("GraphStmt", ("target",), Stmt)
Pass = _node("Pass", (), Stmt)
Break = _node("Break", (), Stmt)
Continue = _node("Continue", (), Stmt)
Return = _node("Return", ("value",), Stmt)
Raise = _node("Raise", ("exc",), Stmt)
Import = _node("Import", ("names",), Stmt)          # [(dotted module, alias or None)]
FromImport = _node("FromImport", ("module", "names"), Stmt)
Assert = _node("Assert", ("test", "msg"), Stmt)
Delete = _node("Delete", ("targets",), Stmt)
Global = _node("Global", ("names",), Stmt)
If = _node("If", ("branches", "orelse"), Stmt)       # branches: [(test, body)]
While = _node("While", ("test", "body", "orelse"), Stmt)
For = _node("For", ("target", "iter", "body", "orelse"), Stmt)
Try = _node("Try", ("body", "handlers", "orelse", "finalbody"), Stmt)   # handlers: [(type|None, name|None, body)]
With = _node("With", ("items", "body"), Stmt)        # items: [(expr, name|None)]
FuncDef = _node("FuncDef", ("name", "params", "body"), Stmt)   # params: [(kind, name, default)]
Module = _node("Module", ("body",))
