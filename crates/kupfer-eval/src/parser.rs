//! A Pratt parser for Python's expression grammar (the subset NumPy users write).
//!
//! Binding powers follow Python's precedence table, lowest first: `or`, `and`, `not`,
//! comparisons (chained), `|`, `^`, `&`, shifts, `+ -`, `* @ / // %`, unary `- + ~`, `**`,
//! then calls, subscripts and attributes. `**` is right-associative and binds tighter than a
//! unary operator on its left but not on its right: `-2**2` is `-(2**2)`, `2**-1` is
//! `2**(-1)`.

use crate::ast::{
    BinOp, BoolOpKind, CmpOp, Comprehension, Expr, ExprKind, Keyword, Span, Stmt, UnaryOp,
};
use crate::error::{EvalError, Result};
use crate::lexer::{tokenize, Token, TokenKind};

/// Deepest syntax tree accepted. Evaluation recurses over the tree, so this bounds its stack
/// (the browser's in particular).
pub const MAX_DEPTH: usize = 100;

/// Deepest nesting of parentheses, brackets, calls and prefix operators the parser accepts
/// (it recurses once per level; debug builds use ~16 KiB of stack per level).
pub const MAX_NESTING: usize = 50;

const BP_OR: u8 = 2;
const BP_AND: u8 = 3;
const BP_NOT: u8 = 4;
const BP_CMP: u8 = 5;
const BP_BITOR: u8 = 6;
const BP_BITXOR: u8 = 7;
const BP_BITAND: u8 = 8;
const BP_SHIFT: u8 = 9;
const BP_SUM: u8 = 10;
const BP_TERM: u8 = 11;
const BP_UNARY: u8 = 12;
const BP_POW: u8 = 13;

/// Parses one expression (a bare `a, b` is a tuple, as in Python).
pub fn parse(src: &str) -> Result<Expr> {
    let tokens = tokenize(src)?;
    let mut p = Parser {
        src,
        tokens,
        pos: 0,
        depth: 0,
        open: Vec::new(),
    };
    if p.peek() == &TokenKind::Eof {
        return Err(p.error_here("empty expression"));
    }
    let (e, _) = p.expr_list()?;
    match p.peek() {
        TokenKind::Eof => Ok(e),
        TokenKind::Op("=") => Err(
            p.error_here("assignment is a statement: evaluate it as a program (`parse_program`)")
        ),
        TokenKind::Op(")" | "]" | "}") => {
            let t = p.peek().describe();
            Err(p.error_here(format!("unmatched {t}")))
        }
        _ => Err(p.unexpected()),
    }
}

/// The augmented-assignment operators and their binary operators.
fn aug_op(kind: &TokenKind) -> Option<BinOp> {
    let TokenKind::Op(op) = kind else {
        return None;
    };
    Some(match *op {
        "+=" => BinOp::Add,
        "-=" => BinOp::Sub,
        "*=" => BinOp::Mul,
        "/=" => BinOp::Div,
        "//=" => BinOp::FloorDiv,
        "%=" => BinOp::Mod,
        "**=" => BinOp::Pow,
        "@=" => BinOp::MatMul,
        "&=" => BinOp::BitAnd,
        "|=" => BinOp::BitOr,
        "^=" => BinOp::BitXor,
        "<<=" => BinOp::LShift,
        ">>=" => BinOp::RShift,
        _ => return None,
    })
}

/// Parses a program: statements (`expr`, `target = expr`, `a, b = expr`, `a[idx] = expr`,
/// `target op= expr`) separated by newlines (outside brackets) or `;`.
pub fn parse_program(src: &str) -> Result<Vec<Stmt>> {
    let tokens = tokenize(src)?;
    let eof = tokens[tokens.len() - 1].clone();
    // Split the tokens at `;` and at line breaks outside brackets.
    let mut groups: Vec<Vec<Token>> = vec![Vec::new()];
    let mut depth = 0i64;
    let mut prev_end: Option<usize> = None;
    for t in &tokens[..tokens.len() - 1] {
        let gap = prev_end.map_or("", |e| &src[e..t.span.start]);
        // A line break ends a statement unless a backslash continues the line.
        let line_break = gap.replace("\\\r\n", "").replace("\\\n", "").contains('\n');
        if depth == 0 && line_break && !groups.last().is_some_and(Vec::is_empty) {
            groups.push(Vec::new());
        }
        prev_end = Some(t.span.end);
        match &t.kind {
            TokenKind::Op("(" | "[" | "{") => depth += 1,
            TokenKind::Op(")" | "]" | "}") => depth -= 1,
            _ => {}
        }
        if depth == 0 && t.kind == TokenKind::Op(";") {
            groups.push(Vec::new());
            continue;
        }
        if let Some(g) = groups.last_mut() {
            g.push(t.clone());
        }
    }
    let mut out = Vec::new();
    for mut g in groups.into_iter().filter(|g| !g.is_empty()) {
        let end = g[g.len() - 1].span.end;
        g.push(Token {
            kind: TokenKind::Eof,
            span: Span::new(end, end.max(eof.span.start.min(end))),
        });
        let mut p = Parser {
            src,
            tokens: g,
            pos: 0,
            depth: 0,
            open: Vec::new(),
        };
        out.push(p.statement()?);
    }
    if out.is_empty() {
        let p = Parser {
            src,
            tokens: vec![eof],
            pos: 0,
            depth: 0,
            open: Vec::new(),
        };
        return Err(p.error_here("empty expression"));
    }
    Ok(out)
}

struct Parser<'a> {
    src: &'a str,
    tokens: Vec<Token>,
    pos: usize,
    /// Current recursion depth of the parser (parentheses count, unlike in the tree).
    depth: usize,
    /// Open brackets (their spans), innermost last, for "was never closed" messages.
    open: Vec<(Span, &'static str)>,
}

/// A parsed node and the depth of its tree.
type Parsed = (Expr, usize);

fn binary_op(kind: &TokenKind) -> Option<(BinOp, u8)> {
    let TokenKind::Op(op) = kind else {
        return None;
    };
    Some(match *op {
        "|" => (BinOp::BitOr, BP_BITOR),
        "^" => (BinOp::BitXor, BP_BITXOR),
        "&" => (BinOp::BitAnd, BP_BITAND),
        "<<" => (BinOp::LShift, BP_SHIFT),
        ">>" => (BinOp::RShift, BP_SHIFT),
        "+" => (BinOp::Add, BP_SUM),
        "-" => (BinOp::Sub, BP_SUM),
        "*" => (BinOp::Mul, BP_TERM),
        "@" => (BinOp::MatMul, BP_TERM),
        "/" => (BinOp::Div, BP_TERM),
        "//" => (BinOp::FloorDiv, BP_TERM),
        "%" => (BinOp::Mod, BP_TERM),
        "**" => (BinOp::Pow, BP_POW),
        _ => return None,
    })
}

/// The comparison operator at the parser's position and how many tokens it takes
/// (`is not` takes two).
fn compare_op(kind: &TokenKind, next: &TokenKind) -> Option<(CmpOp, usize)> {
    if *kind == TokenKind::Reserved("is") {
        return Some(if *next == TokenKind::Not {
            (CmpOp::IsNot, 2)
        } else {
            (CmpOp::Is, 1)
        });
    }
    let op = match kind {
        TokenKind::Op("<") => Some(CmpOp::Lt),
        TokenKind::Op("<=") => Some(CmpOp::Le),
        TokenKind::Op(">") => Some(CmpOp::Gt),
        TokenKind::Op(">=") => Some(CmpOp::Ge),
        TokenKind::Op("==") => Some(CmpOp::Eq),
        TokenKind::Op("!=") => Some(CmpOp::Ne),
        _ => None,
    };
    op.map(|op| (op, 1))
}

impl<'a> Parser<'a> {
    fn peek(&self) -> &TokenKind {
        &self.tokens[self.pos.min(self.tokens.len() - 1)].kind
    }

    fn peek_at(&self, n: usize) -> &TokenKind {
        &self.tokens[(self.pos + n).min(self.tokens.len() - 1)].kind
    }

    fn span_here(&self) -> Span {
        self.tokens[self.pos.min(self.tokens.len() - 1)].span
    }

    fn prev_span(&self) -> Span {
        self.tokens[self.pos.saturating_sub(1)].span
    }

    fn advance(&mut self) -> Token {
        let t = self.tokens[self.pos.min(self.tokens.len() - 1)].clone();
        if self.pos < self.tokens.len() - 1 {
            self.pos += 1;
        }
        t
    }

    fn eat(&mut self, op: &str) -> bool {
        if matches!(self.peek(), TokenKind::Op(o) if *o == op) {
            self.advance();
            true
        } else {
            false
        }
    }

    fn error_at(&self, span: Span, msg: impl Into<String>) -> EvalError {
        EvalError::syntax(self.src, span, msg)
    }

    fn error_here(&self, msg: impl Into<String>) -> EvalError {
        self.error_at(self.span_here(), msg)
    }

    fn too_deep(&self, span: Span) -> EvalError {
        self.error_at(
            span,
            format!("expression too deeply nested (more than {MAX_DEPTH} levels)"),
        )
    }

    /// A new node over children of tree depth `child_depth`, refused past [`MAX_DEPTH`].
    fn node(&self, kind: ExprKind, span: Span, child_depth: usize) -> Result<Parsed> {
        let depth = child_depth + 1;
        if depth > MAX_DEPTH {
            return Err(self.too_deep(span));
        }
        Ok((Expr::new(kind, span), depth))
    }

    /// The error for a token that cannot appear here.
    fn unexpected(&self) -> EvalError {
        let tok = self.peek();
        match tok {
            TokenKind::Eof => match self.open.last() {
                Some((span, b)) => self.error_at(*span, format!("'{b}' was never closed")),
                None => self.error_here("unexpected end of expression"),
            },
            TokenKind::Reserved(k) => self.error_here(match *k {
                "for" => "invalid syntax: a comprehension must be inside [...]".to_string(),
                "if" | "else" => {
                    "conditional expressions (x if c else y) are not supported".to_string()
                }
                "in" => "the 'in' operator is not supported".to_string(),
                k => format!("'{k}' is not supported: kupfer eval evaluates one expression"),
            }),
            TokenKind::Op("{") => self.error_here("sets are not supported"),
            TokenKind::Op(";") => {
                self.error_here("';' is not supported: kupfer eval evaluates one expression")
            }
            TokenKind::Op("=") => self.error_here("invalid syntax: unexpected '='"),
            TokenKind::Op(op @ (")" | "]" | "}")) => {
                let open = self.open.last().map(|(_, b)| *b);
                let matching = match open {
                    Some("(") => ")",
                    Some("{") => "}",
                    _ => "]",
                };
                match open {
                    None => self.error_here(format!("unmatched '{op}'")),
                    Some(o) if matching != *op => {
                        self.error_here(format!("closing '{op}' does not match opening '{o}'"))
                    }
                    Some(_) => self.error_here(format!("invalid syntax: unexpected '{op}'")),
                }
            }
            t => self.error_here(format!("invalid syntax: unexpected {}", t.describe())),
        }
    }

    fn expect_close(&mut self, close: &str) -> Result<Span> {
        if self.eat(close) {
            self.open.pop();
            Ok(self.prev_span())
        } else {
            Err(self.unexpected())
        }
    }

    /// One statement (the tokens end at the statement's end).
    fn statement(&mut self) -> Result<Stmt> {
        if matches!(self.peek(), TokenKind::Reserved("assert")) {
            self.advance();
            let (test, _) = self.expr(0)?;
            let message = if self.eat(",") {
                Some(self.expr(0)?.0)
            } else {
                None
            };
            self.end_of_statement()?;
            return Ok(Stmt::Assert { test, message });
        }
        let (first, _) = self.expr_list()?;
        if let Some(op) = aug_op(self.peek()) {
            self.advance();
            self.check_target(&first, false)?;
            let (value, _) = self.expr_list()?;
            self.end_of_statement()?;
            return Ok(Stmt::AugAssign {
                target: first,
                op,
                value,
            });
        }
        if !matches!(self.peek(), TokenKind::Op("=")) {
            self.end_of_statement()?;
            return Ok(Stmt::Expr(first));
        }
        let mut targets = vec![first];
        while self.eat("=") {
            let (e, _) = self.expr_list()?;
            targets.push(e);
        }
        self.end_of_statement()?;
        let value = targets.pop().ok_or_else(|| self.unexpected())?;
        for t in &targets {
            self.check_target(t, true)?;
        }
        Ok(Stmt::Assign { targets, value })
    }

    /// Checks that `e` can be assigned to (a name, a subscript, or, with `unpack`, a tuple or
    /// list of those).
    fn check_target(&self, e: &Expr, unpack: bool) -> Result<()> {
        match &e.kind {
            ExprKind::Name(_) | ExprKind::Subscript { .. } | ExprKind::Attribute { .. } => Ok(()),
            ExprKind::Tuple(items) | ExprKind::List(items) if unpack => {
                items.iter().try_for_each(|i| self.check_target(i, true))
            }
            ExprKind::Tuple(_) | ExprKind::List(_) => Err(EvalError::syntax(
                self.src,
                e.span,
                "'tuple' is an illegal expression for augmented assignment",
            )),
            ExprKind::Call { .. } => Err(EvalError::syntax(
                self.src,
                e.span,
                "cannot assign to function call here. Maybe you meant '==' instead of '='?",
            )),
            _ => Err(EvalError::syntax(
                self.src,
                e.span,
                "cannot assign to expression here. Maybe you meant '==' instead of '='?",
            )),
        }
    }

    fn end_of_statement(&self) -> Result<()> {
        match self.peek() {
            TokenKind::Eof => Ok(()),
            TokenKind::Op(")" | "]" | "}") => {
                let t = self.peek().describe();
                Err(self.error_here(format!("unmatched {t}")))
            }
            _ => Err(self.unexpected()),
        }
    }

    /// `a, b, c` (a tuple when there is a comma) or one expression.
    fn expr_list(&mut self) -> Result<Parsed> {
        let (first, d) = self.expr(0)?;
        if !matches!(self.peek(), TokenKind::Op(",")) {
            return Ok((first, d));
        }
        let mut depth = d;
        let mut items = vec![first];
        while self.eat(",") {
            if !self.starts_expression() {
                break;
            }
            let (e, d) = self.expr(0)?;
            depth = depth.max(d);
            items.push(e);
        }
        let span = items[0].span.to(self.prev_span());
        self.node(ExprKind::Tuple(items), span, depth)
    }

    fn starts_expression(&self) -> bool {
        !matches!(
            self.peek(),
            TokenKind::Eof | TokenKind::Op(")" | "]" | "}" | "=" | ":" | ",")
        )
    }

    /// The Pratt loop: an operand, then the operators that bind at least `min_bp`.
    fn expr(&mut self, min_bp: u8) -> Result<Parsed> {
        self.depth += 1;
        let result = if self.depth > MAX_NESTING {
            Err(self.error_here(format!(
                "expression too deeply nested (more than {MAX_NESTING} levels of brackets, \
                 calls or operators)"
            )))
        } else {
            self.expr_inner(min_bp)
        };
        self.depth -= 1;
        result
    }

    fn expr_inner(&mut self, min_bp: u8) -> Result<Parsed> {
        let (mut lhs, mut depth) = self.prefix(min_bp)?;
        loop {
            let tok = self.peek().clone();
            if let Some((op, bp)) = binary_op(&tok) {
                if bp < min_bp {
                    break;
                }
                self.advance();
                // `**` is right-associative and its right operand may start with a unary op.
                let (rhs, rd) = if op == BinOp::Pow {
                    self.expr(BP_UNARY)?
                } else {
                    self.expr(bp + 1)?
                };
                let span = lhs.span.to(rhs.span);
                let kind = ExprKind::Binary {
                    op,
                    left: Box::new(lhs),
                    right: Box::new(rhs),
                };
                (lhs, depth) = self.node(kind, span, depth.max(rd))?;
            } else if compare_op(&tok, self.peek_at(1)).is_some() {
                if BP_CMP < min_bp {
                    break;
                }
                let mut rest = Vec::new();
                let mut d = depth;
                while let Some((op, tokens)) = compare_op(self.peek(), self.peek_at(1)) {
                    for _ in 0..tokens {
                        self.advance();
                    }
                    let (e, ed) = self.expr(BP_CMP + 1)?;
                    d = d.max(ed);
                    rest.push((op, e));
                }
                let span = rest.last().map_or(lhs.span, |(_, e)| lhs.span.to(e.span));
                let kind = ExprKind::Compare {
                    left: Box::new(lhs),
                    rest,
                };
                (lhs, depth) = self.node(kind, span, d)?;
            } else if matches!(tok, TokenKind::And | TokenKind::Or) {
                let (kind, bp) = if tok == TokenKind::And {
                    (BoolOpKind::And, BP_AND)
                } else {
                    (BoolOpKind::Or, BP_OR)
                };
                if bp < min_bp {
                    break;
                }
                let mut d = depth;
                let mut values = vec![lhs];
                while *self.peek() == tok {
                    self.advance();
                    let (e, ed) = self.expr(bp + 1)?;
                    d = d.max(ed);
                    values.push(e);
                }
                let span = values[0].span.to(values[values.len() - 1].span);
                (lhs, depth) = self.node(ExprKind::BoolOp { op: kind, values }, span, d)?;
            } else if matches!(tok, TokenKind::Reserved("for" | "in" | "if" | "else")) {
                // The end of a comprehension's part; elsewhere the caller reports the token.
                break;
            } else if matches!(tok, TokenKind::Reserved(_)) {
                return Err(self.unexpected());
            } else if tok == TokenKind::Not && matches!(self.peek_at(1), TokenKind::Reserved("in"))
            {
                return Err(self.error_here("the 'not in' operator is not supported"));
            } else {
                break;
            }
        }
        Ok((lhs, depth))
    }

    /// A prefix operator or a primary expression with its postfix operators.
    fn prefix(&mut self, min_bp: u8) -> Result<Parsed> {
        let start = self.span_here();
        let op = match self.peek() {
            TokenKind::Op("-") => Some((UnaryOp::Neg, BP_UNARY)),
            TokenKind::Op("+") => Some((UnaryOp::Pos, BP_UNARY)),
            TokenKind::Op("~") => Some((UnaryOp::Invert, BP_UNARY)),
            TokenKind::Not => Some((UnaryOp::Not, BP_NOT)),
            _ => None,
        };
        if let Some((op, bp)) = op {
            if op == UnaryOp::Not && min_bp > BP_NOT {
                return Err(
                    self.error_here("invalid syntax: 'not' cannot appear here; add parentheses")
                );
            }
            self.advance();
            let (operand, d) = self.expr(bp)?;
            let span = start.to(operand.span);
            let kind = ExprKind::Unary {
                op,
                operand: Box::new(operand),
            };
            return self.node(kind, span, d);
        }
        if matches!(self.peek(), TokenKind::Reserved("lambda")) {
            return self.lambda();
        }
        let atom = self.atom()?;
        self.postfix(atom)
    }

    /// `*iterable` in a call's arguments.
    fn starred_argument(&mut self) -> Result<Parsed> {
        let start = self.advance().span;
        let (inner, d) = self.expr(BP_OR)?;
        let span = start.to(inner.span);
        self.node(ExprKind::Starred(Box::new(inner)), span, d)
    }

    /// `lambda a, b: body` (plain positional parameters).
    fn lambda(&mut self) -> Result<Parsed> {
        let start = self.advance().span;
        let mut params = Vec::new();
        while let TokenKind::Name(n) = self.peek() {
            let n = n.clone();
            if params.contains(&n) {
                return Err(
                    self.error_here(format!("duplicate argument '{n}' in function definition"))
                );
            }
            params.push(n);
            self.advance();
            if !self.eat(",") {
                break;
            }
        }
        if !self.eat(":") {
            return Err(
                self.error_here("invalid syntax: a lambda takes plain parameter names, then ':'")
            );
        }
        let (body, d) = self.expr(0)?;
        let span = start.to(body.span);
        let kind = ExprKind::Lambda {
            params,
            body: Box::new(body),
        };
        self.node(kind, span, d)
    }

    /// The `for ... in ... if ...` clauses after a comprehension's `element`.
    fn comprehension(&mut self, element: Expr, depth: usize) -> Result<Parsed> {
        let mut depth = depth;
        let mut clauses = Vec::new();
        while matches!(self.peek(), TokenKind::Reserved("for")) {
            self.advance();
            let mut targets = Vec::new();
            let parenthesised = self.eat("(");
            while let TokenKind::Name(n) = self.peek() {
                targets.push(n.clone());
                self.advance();
                if !self.eat(",") {
                    break;
                }
            }
            if parenthesised && !self.eat(")") {
                return Err(self.unexpected());
            }
            if targets.is_empty() || !matches!(self.peek(), TokenKind::Reserved("in")) {
                return Err(self.error_here(
                    "invalid syntax: a comprehension binds names: for x in ... or for i, x in ...",
                ));
            }
            self.advance();
            let (iterable, d) = self.expr(BP_OR)?;
            depth = depth.max(d);
            let mut conditions = Vec::new();
            while matches!(self.peek(), TokenKind::Reserved("if")) {
                self.advance();
                let (c, d) = self.expr(BP_OR)?;
                depth = depth.max(d);
                conditions.push(c);
            }
            clauses.push(Comprehension {
                targets,
                iterable,
                conditions,
            });
        }
        let span = element.span.to(self.prev_span());
        let kind = ExprKind::ListComp {
            element: Box::new(element),
            clauses,
        };
        self.node(kind, span, depth)
    }

    fn postfix(&mut self, (mut e, mut depth): Parsed) -> Result<Parsed> {
        loop {
            match self.peek() {
                TokenKind::Op(".") => {
                    self.advance();
                    let t = self.advance();
                    let TokenKind::Name(attr) = t.kind else {
                        return Err(self.error_at(
                            t.span,
                            format!(
                                "invalid syntax: expected an attribute name after '.', found {}",
                                t.kind.describe()
                            ),
                        ));
                    };
                    let span = e.span.to(t.span);
                    let kind = ExprKind::Attribute {
                        value: Box::new(e),
                        attr,
                    };
                    (e, depth) = self.node(kind, span, depth)?;
                }
                TokenKind::Op("(") => {
                    let open = self.advance().span;
                    self.open.push((open, "("));
                    let (args, keywords, d) = self.arguments()?;
                    let close = self.expect_close(")")?;
                    let span = e.span.to(close);
                    let kind = ExprKind::Call {
                        func: Box::new(e),
                        args,
                        keywords,
                    };
                    (e, depth) = self.node(kind, span, depth.max(d))?;
                }
                TokenKind::Op("[") => {
                    let open = self.advance().span;
                    self.open.push((open, "["));
                    let (index, d) = self.subscript()?;
                    let close = self.expect_close("]")?;
                    let span = e.span.to(close);
                    let kind = ExprKind::Subscript {
                        value: Box::new(e),
                        index: Box::new(index),
                    };
                    (e, depth) = self.node(kind, span, depth.max(d))?;
                }
                _ => return Ok((e, depth)),
            }
        }
    }

    fn arguments(&mut self) -> Result<(Vec<Expr>, Vec<Keyword>, usize)> {
        let mut args = Vec::new();
        let mut keywords: Vec<Keyword> = Vec::new();
        let mut depth = 0;
        loop {
            if matches!(self.peek(), TokenKind::Op(")")) {
                break;
            }
            if matches!(self.peek(), TokenKind::Op("**")) {
                return Err(self.error_here("argument unpacking (**kwargs) is not supported"));
            }
            if matches!(self.peek(), TokenKind::Op("*")) {
                let (e, d) = self.starred_argument()?;
                if !keywords.is_empty() {
                    return Err(self.error_at(
                        e.span,
                        "iterable argument unpacking follows keyword argument unpacking",
                    ));
                }
                depth = depth.max(d);
                args.push(e);
                if !self.eat(",") {
                    break;
                }
                continue;
            }
            if let (TokenKind::Name(name), TokenKind::Op("=")) = (self.peek(), self.peek_at(1)) {
                let name = name.clone();
                let name_span = self.advance().span;
                self.advance();
                if keywords.iter().any(|k| k.name == name) {
                    return Err(
                        self.error_at(name_span, format!("keyword argument repeated: '{name}'"))
                    );
                }
                let (value, d) = self.expr(0)?;
                depth = depth.max(d);
                keywords.push(Keyword {
                    name,
                    name_span,
                    value,
                });
            } else {
                let at = self.span_here();
                let (mut e, mut d) = self.expr(0)?;
                if matches!(self.peek(), TokenKind::Reserved("for")) {
                    // A generator expression, evaluated as a list.
                    (e, d) = self.comprehension(e, d)?;
                }
                depth = depth.max(d);
                if matches!(self.peek(), TokenKind::Op("=")) {
                    return Err(self.error_here(
                        "invalid syntax: a keyword argument must be a plain name (name=value)",
                    ));
                }
                if !keywords.is_empty() {
                    return Err(self.error_at(at, "positional argument follows keyword argument"));
                }
                args.push(e);
            }
            if !self.eat(",") {
                break;
            }
        }
        Ok((args, keywords, depth))
    }

    /// The inside of `[...]`: expressions and slices separated by commas.
    fn subscript(&mut self) -> Result<Parsed> {
        if matches!(self.peek(), TokenKind::Op("]")) {
            return Err(self.error_here("invalid syntax: empty subscript"));
        }
        let (first, d) = self.subscript_item()?;
        if !matches!(self.peek(), TokenKind::Op(",")) {
            return Ok((first, d));
        }
        let mut depth = d;
        let mut items = vec![first];
        while self.eat(",") {
            if matches!(self.peek(), TokenKind::Op("]")) {
                break;
            }
            let (e, d) = self.subscript_item()?;
            depth = depth.max(d);
            items.push(e);
        }
        let span = items[0].span.to(self.prev_span());
        self.node(ExprKind::Tuple(items), span, depth)
    }

    fn subscript_item(&mut self) -> Result<Parsed> {
        let start = self.span_here();
        let is_bound_end = |k: &TokenKind| matches!(k, TokenKind::Op(":" | "," | "]"));
        let mut depth = 0;
        let mut part = |p: &mut Self| -> Result<Option<Box<Expr>>> {
            let (e, d) = p.expr(0)?;
            depth = depth.max(d);
            Ok(Some(Box::new(e)))
        };
        let lower = if is_bound_end(self.peek()) {
            None
        } else {
            part(self)?
        };
        if !matches!(self.peek(), TokenKind::Op(":")) {
            return match lower {
                Some(e) => Ok((*e, depth)),
                None => Err(self.unexpected()),
            };
        }
        self.advance();
        let upper = if is_bound_end(self.peek()) {
            None
        } else {
            part(self)?
        };
        let mut step = None;
        if self.eat(":") && !matches!(self.peek(), TokenKind::Op("," | "]")) {
            step = part(self)?;
        }
        let span = start.to(self.prev_span());
        let kind = ExprKind::Slice {
            start: lower,
            stop: upper,
            step,
        };
        self.node(kind, span, depth)
    }

    fn atom(&mut self) -> Result<Parsed> {
        let tok = self.peek().clone();
        let span = self.span_here();
        let kind = match tok {
            TokenKind::Int(i) => ExprKind::Int(i),
            TokenKind::Float(x) => ExprKind::Float(x),
            TokenKind::Imag(x) => ExprKind::Imag(x),
            TokenKind::True => ExprKind::Bool(true),
            TokenKind::False => ExprKind::Bool(false),
            TokenKind::None => ExprKind::None,
            TokenKind::Name(n) => ExprKind::Name(n),
            TokenKind::Op("...") => ExprKind::Ellipsis,
            TokenKind::Str(mut s) => {
                self.advance();
                let mut end = span;
                while let TokenKind::Str(more) = self.peek() {
                    s.push_str(more);
                    end = self.advance().span;
                }
                return Ok((Expr::new(ExprKind::Str(s), span.to(end)), 1));
            }
            TokenKind::Op("(") => return self.parenthesised(),
            TokenKind::Op("[") => return self.list(),
            TokenKind::Op("{") => return self.dict(),
            _ => return Err(self.unexpected()),
        };
        self.advance();
        Ok((Expr::new(kind, span), 1))
    }

    fn parenthesised(&mut self) -> Result<Parsed> {
        let open = self.advance().span;
        self.open.push((open, "("));
        if matches!(self.peek(), TokenKind::Op(")")) {
            let close = self.expect_close(")")?;
            return Ok((Expr::new(ExprKind::Tuple(Vec::new()), open.to(close)), 1));
        }
        let (inner, depth) = self.expr_list()?;
        let close = self.expect_close(")")?;
        Ok(match inner.kind {
            ExprKind::Tuple(items) => (Expr::new(ExprKind::Tuple(items), open.to(close)), depth),
            kind => (Expr::new(kind, inner.span), depth),
        })
    }

    fn list(&mut self) -> Result<Parsed> {
        let open = self.advance().span;
        self.open.push((open, "["));
        let mut items = Vec::new();
        let mut depth = 0;
        while !matches!(self.peek(), TokenKind::Op("]")) {
            let (e, d) = self.expr(0)?;
            if items.is_empty() && matches!(self.peek(), TokenKind::Reserved("for")) {
                let (comp, d) = self.comprehension(e, d)?;
                let close = self.expect_close("]")?;
                return Ok((Expr::new(comp.kind, open.to(close)), d));
            }
            depth = depth.max(d);
            items.push(e);
            if !self.eat(",") {
                break;
            }
        }
        let close = self.expect_close("]")?;
        self.node(ExprKind::List(items), open.to(close), depth)
    }

    /// A dict display `{key: value, ...}` (a trailing comma allowed; `{}` is empty).
    fn dict(&mut self) -> Result<Parsed> {
        let open = self.advance().span;
        self.open.push((open, "{"));
        let mut pairs = Vec::new();
        let mut depth = 0;
        while !matches!(self.peek(), TokenKind::Op("}")) {
            let (key, dk) = self.expr(0)?;
            if !self.eat(":") {
                return Err(match self.peek() {
                    TokenKind::Op("," | "}") => self.error_at(open, "sets are not supported"),
                    _ => self.unexpected(),
                });
            }
            let (value, dv) = self.expr(0)?;
            depth = depth.max(dk).max(dv);
            pairs.push((key, value));
            if !self.eat(",") {
                break;
            }
        }
        let close = self.expect_close("}")?;
        self.node(ExprKind::Dict(pairs), open.to(close), depth)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(src: &str) -> String {
        match parse(src) {
            Ok(e) => e.to_string(),
            Err(e) => panic!("{src:?}: {}", e.render()),
        }
    }

    fn perr(src: &str) -> String {
        match parse(src) {
            Ok(e) => panic!("{src:?} parsed as {e}"),
            Err(e) => e.render(),
        }
    }

    #[test]
    fn precedence() {
        assert_eq!(p("-2**2"), "(neg (** 2 2))");
        assert_eq!(p("2**-1"), "(** 2 (neg 1))");
        assert_eq!(p("2**3**2"), "(** 2 (** 3 2))");
        assert_eq!(p("2**-3**2"), "(** 2 (neg (** 3 2)))");
        assert_eq!(p("-a*b"), "(* (neg a) b)");
        assert_eq!(p("a*-b**c"), "(* a (neg (** b c)))");
        assert_eq!(p("1-2-3"), "(- (- 1 2) 3)");
        assert_eq!(p("a+b*c@d//e%f"), "(+ a (% (// (@ (* b c) d) e) f))");
        assert_eq!(
            p("a | b ^ c & d << e + f"),
            "(| a (^ b (& c (<< d (+ e f)))))"
        );
        assert_eq!(p("~a ** 2"), "(inv (** a 2))");
        assert_eq!(p("a < b == c"), "(cmp a < b == c)");
        assert_eq!(p("a < b | c"), "(cmp a < (| b c))");
        assert_eq!(
            p("not a == b and c or d"),
            "(or (and (not (cmp a == b)) c) d)"
        );
        assert_eq!(p("a and b and c"), "(and a b c)");
        assert_eq!(p("-a.T[0](1)"), "(neg (call (sub (. a T) 0) 1))");
    }

    #[test]
    fn atoms_and_calls() {
        assert_eq!(
            p("np.sum(a, axis=0, keepdims=True)"),
            "(call (. np sum) a axis=0 keepdims=True)"
        );
        assert_eq!(p("f()"), "(call f)");
        assert_eq!(p("f(a,)"), "(call f a)");
        assert_eq!(p("(1, 2)"), "(tuple 1 2)");
        assert_eq!(p("(1,)"), "(tuple 1)");
        assert_eq!(p("()"), "(tuple)");
        assert_eq!(p("(1)"), "1");
        assert_eq!(p("1, 2"), "(tuple 1 2)");
        assert_eq!(p("[1, 2, 3,]"), "(list 1 2 3)");
        assert_eq!(p("[]"), "(list)");
        assert_eq!(p("'a' \"b\""), "'ab'");
        assert_eq!(p("2.5j"), "2.5j");
        assert_eq!(p("1e-3"), "0.001");
        assert_eq!(p("True, False, None, ..."), "(tuple True False None ...)");
    }

    #[test]
    fn subscripts() {
        assert_eq!(
            p("a[::-1, 1:5:2, None, 3]"),
            "(sub a (tuple (slice _ _ (neg 1)) (slice 1 5 2) None 3))"
        );
        assert_eq!(p("a[...]"), "(sub a ...)");
        assert_eq!(p("a[:]"), "(sub a (slice _ _ _))");
        assert_eq!(p("a[1:]"), "(sub a (slice 1 _ _))");
        assert_eq!(p("a[::]"), "(sub a (slice _ _ _))");
        assert_eq!(p("a[1,]"), "(sub a (tuple 1))");
        assert_eq!(p("a[()]"), "(sub a (tuple))");
        assert_eq!(p("a[..., 0]"), "(sub a (tuple ... 0))");
    }

    #[test]
    fn lambdas_and_comprehensions() {
        assert_eq!(p("lambda i, j: i + j"), "(lambda (i j) (+ i j))");
        assert_eq!(p("lambda: 1"), "(lambda () 1)");
        assert_eq!(
            p("f(lambda x: x * 2, 3)"),
            "(call f (lambda (x) (* x 2)) 3)"
        );
        assert_eq!(
            p("[x**2 for x in range(5)]"),
            "(listcomp (** x 2) (for (x) (call range 5)))"
        );
        assert_eq!(
            p("[a + b for a, b in z if a > 1 if b for c in a]"),
            "(listcomp (+ a b) (for (a b) z (if (cmp a > 1)) (if b)) (for (c) a))"
        );
        assert_eq!(
            p("sum(x for x in y)"),
            "(call sum (listcomp x (for (x) y)))"
        );
    }

    #[test]
    fn errors() {
        assert_eq!(
            perr("a + (b * 2"),
            "syntax error at column 5: '(' was never closed\n  a + (b * 2\n      ^"
        );
        assert_eq!(
            perr("a + b)"),
            "syntax error at column 6: unmatched ')'\n  a + b)\n       ^"
        );
        assert_eq!(
            perr("a +"),
            "syntax error at column 4: unexpected end of expression\n  a +\n     ^"
        );
        assert_eq!(
            perr(""),
            "syntax error at column 1: empty expression\n  \n  ^"
        );
        assert!(perr("f(a=1, b)").contains("positional argument follows keyword argument"));
        assert!(perr("f(a=1, a=2)").contains("keyword argument repeated: 'a'"));
        assert!(perr("a = 1").contains("assignment is a statement"));
        assert!(perr("a + not b").contains("'not' cannot appear here"));
        assert!(perr("x if y else z").contains("conditional expressions"));
        assert!(perr("a in b").contains("'in' operator"));
        assert!(perr("a not in b").contains("'not in'"));
        assert_eq!(p("a is not None is b"), "(cmp a is not None is b)");
        assert!(perr("a is").contains("unexpected end"));
        assert!(perr("x for x in y").contains("comprehension must be inside"));
        assert!(perr("[x for 1 in y]").contains("a comprehension binds names"));
        assert!(perr("lambda x=1: x").contains("plain parameter names"));
        assert!(perr("lambda x, x: x").contains("duplicate argument 'x'"));
        assert!(perr("f(**a)").contains("unpacking"));
        assert_eq!(p("f(*a, b)"), "(call f (* a) b)");
        assert!(perr("a[]").contains("empty subscript"));
        assert!(perr("a[1)").contains("closing ')' does not match opening '['"));
        assert!(perr("a.(b)").contains("expected an attribute name"));
        assert!(perr("a.1").contains("unexpected number"));
        assert!(perr("{1, 2}").contains("sets are not supported"));
        assert!(perr("{1}").contains("sets are not supported"));
        assert!(perr("{1: 2").contains("'{' was never closed"));
        assert!(perr("{1: 2]").contains("closing ']' does not match opening '{'"));
        assert!(perr("{1: }").contains("unexpected '}'"));
        assert!(perr("a}").contains("unmatched '}'"));
        assert!(perr("a b").contains("unexpected name 'b'"));
        assert!(perr("1 2").contains("unexpected number 2"));
    }

    #[test]
    fn dict_displays() {
        assert_eq!(p("{}"), "(dict)");
        assert_eq!(p("{1: 2}"), "(dict 1:2)");
        assert_eq!(
            p("{-1: (1, 2), 'a': [3],}"),
            "(dict (neg 1):(tuple 1 2) 'a':(list 3))"
        );
        assert_eq!(p("f(a, {0: b + 1})"), "(call f a (dict 0:(+ b 1)))");
    }

    #[test]
    fn depth_limit() {
        let deep = format!("{}1{}", "(".repeat(10_000), ")".repeat(10_000));
        assert!(perr(&deep).contains("too deeply nested"));
        let neg = format!("{}1", "-".repeat(10_000));
        assert!(perr(&neg).contains("too deeply nested"));
        let chain = vec!["1"; 10_000].join("+");
        assert!(perr(&chain).contains("too deeply nested"));
        let pow = vec!["2"; 10_000].join("**");
        assert!(perr(&pow).contains("too deeply nested"));
        let calls = format!("f{}", "(1)".repeat(10_000));
        assert!(perr(&calls).contains("too deeply nested"));
        let ok = vec!["1"; 99].join("+");
        assert!(parse(&ok).is_ok());
        // Parenthesised chains inside parenthesised chains: the tree depth is what counts.
        let mut nested = "1".to_string();
        for _ in 0..20 {
            nested = format!("({nested}+1+1+1+1+1+1)");
        }
        assert!(perr(&nested).contains("too deeply nested"));
    }

    #[test]
    fn spans_cover_nodes() {
        let e = parse("  a + f(b)[1] ").unwrap();
        assert_eq!(e.span, Span::new(2, 13));
    }

    /// Random garbage never panics (a small fuzz test).
    #[test]
    fn garbage_never_panics() {
        let pieces = [
            "a",
            "np",
            ".",
            "(",
            ")",
            "[",
            "]",
            ",",
            ":",
            "::",
            "-",
            "+",
            "**",
            "*",
            "/",
            "//",
            "%",
            "@",
            "&",
            "|",
            "^",
            "~",
            "<<",
            ">>",
            "<",
            "<=",
            "==",
            "!=",
            "not",
            "and",
            "or",
            "1",
            "2.5",
            "1e-3",
            "0x1F",
            "3j",
            "'s'",
            "\"",
            "'",
            "...",
            "None",
            "True",
            "=",
            "lambda",
            "in",
            "é",
            "\u{1F600}",
            "\\",
            "#",
            "\n",
            " ",
            "0_",
            "1.",
            ".5",
            "\t",
            "{",
            "}",
            ";",
            "$",
            "!",
            "`",
            "'''",
            "r'",
            "b'",
            "\\x",
        ];
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..30_000 {
            let n = (next() % 12) as usize;
            let mut s = String::new();
            for _ in 0..n {
                s.push_str(pieces[(next() % pieces.len() as u64) as usize]);
                if next() % 3 == 0 {
                    s.push(' ');
                }
            }
            if let Err(e) = parse(&s) {
                let r = e.render();
                assert!(!r.is_empty());
            }
        }
        // Arbitrary bytes interpreted as (lossy) UTF-8.
        for _ in 0..5_000 {
            let n = (next() % 24) as usize;
            let bytes: Vec<u8> = (0..n).map(|_| (next() & 0xff) as u8).collect();
            let s = String::from_utf8_lossy(&bytes);
            let _ = parse(&s).map_err(|e| e.render());
        }
    }
}
