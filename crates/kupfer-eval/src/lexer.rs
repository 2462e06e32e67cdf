//! Tokens of Python's expression syntax, each with its byte range.
//!
//! Numbers follow Python 3's literal grammar (underscores between digits, `0x`/`0o`/`0b`,
//! `1.`, `.5`, `1e-3`, imaginary `2.5j`); strings take `'...'`, `"..."`, triple quotes, the
//! `r`/`u` prefixes and Python's escapes. Comments (`#`) and line continuations are skipped.

use crate::ast::Span;
use crate::error::{EvalError, Result};

/// What a token is.
#[derive(Debug, Clone, PartialEq)]
pub enum TokenKind {
    /// Integer literal (Python ints are exact up to 128 bits here).
    Int(i128),
    /// Float literal.
    Float(f64),
    /// Imaginary literal (the factor of `j`).
    Imag(f64),
    /// String literal (escapes resolved).
    Str(String),
    /// Identifier.
    Name(String),
    /// `True`
    True,
    /// `False`
    False,
    /// `None`
    None,
    /// `and`
    And,
    /// `or`
    Or,
    /// `not`
    Not,
    /// A Python keyword kupfer eval has no use for (`in`, `is`, `if`, `lambda`, ...).
    Reserved(&'static str),
    /// Punctuation and operators, as written (`+`, `**`, `(`, `...`, `=`, ...).
    Op(&'static str),
    /// End of input.
    Eof,
}

/// A token and where it is.
#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    /// What it is.
    pub kind: TokenKind,
    /// Its bytes in the source.
    pub span: Span,
}

impl TokenKind {
    /// How the token reads in an error message.
    pub fn describe(&self) -> String {
        match self {
            TokenKind::Int(i) => format!("number {i}"),
            TokenKind::Float(_) | TokenKind::Imag(_) => "number".to_string(),
            TokenKind::Str(_) => "string".to_string(),
            TokenKind::Name(n) => format!("name '{n}'"),
            TokenKind::True => "'True'".to_string(),
            TokenKind::False => "'False'".to_string(),
            TokenKind::None => "'None'".to_string(),
            TokenKind::And => "'and'".to_string(),
            TokenKind::Or => "'or'".to_string(),
            TokenKind::Not => "'not'".to_string(),
            TokenKind::Reserved(k) => format!("'{k}'"),
            TokenKind::Op(o) => format!("'{o}'"),
            TokenKind::Eof => "end of input".to_string(),
        }
    }
}

const RESERVED: [&str; 29] = [
    "in", "is", "if", "else", "elif", "lambda", "for", "while", "def", "class", "return", "yield",
    "import", "from", "as", "with", "try", "except", "finally", "raise", "del", "pass", "break",
    "continue", "global", "nonlocal", "assert", "async", "await",
];

/// Operators, longest first so that the first match is the longest.
const OPERATORS: [&str; 49] = [
    "**=", "//=", ">>=", "<<=", "...", "**", "//", "<<", ">>", "<=", ">=", "==", "!=", "->", ":=",
    "+=", "-=", "*=", "/=", "%=", "@=", "&=", "|=", "^=", "+", "-", "*", "/", "%", "@", "&", "|",
    "^", "~", "<", ">", "(", ")", "[", "]", "{", "}", ",", ":", ".", ";", "=", "!", "`",
];

/// Splits `src` into tokens, ending with [`TokenKind::Eof`].
pub fn tokenize(src: &str) -> Result<Vec<Token>> {
    Lexer { src, pos: 0 }.run()
}

struct Lexer<'a> {
    src: &'a str,
    pos: usize,
}

fn is_ident_start(c: char) -> bool {
    c == '_' || c.is_alphabetic()
}

fn is_ident_continue(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

impl<'a> Lexer<'a> {
    fn err(&self, start: usize, end: usize, msg: impl Into<String>) -> EvalError {
        EvalError::syntax(self.src, Span::new(start, end), msg)
    }

    fn rest(&self) -> &'a str {
        &self.src[self.pos..]
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn peek_at(&self, n: usize) -> Option<char> {
        self.rest().chars().nth(n)
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    fn run(mut self) -> Result<Vec<Token>> {
        let mut out = Vec::new();
        loop {
            self.skip_trivia()?;
            let start = self.pos;
            let Some(c) = self.peek() else {
                out.push(Token {
                    kind: TokenKind::Eof,
                    span: Span::new(start, start),
                });
                return Ok(out);
            };
            let kind = if c.is_ascii_digit()
                || (c == '.' && self.peek_at(1).is_some_and(|d| d.is_ascii_digit()))
            {
                self.number()?
            } else if c == '\'' || c == '"' {
                self.string(false)?
            } else if is_ident_start(c) {
                self.word()?
            } else {
                self.operator()?
            };
            out.push(Token {
                kind,
                span: Span::new(start, self.pos),
            });
        }
    }

    fn skip_trivia(&mut self) -> Result<()> {
        while let Some(c) = self.peek() {
            if c == '#' {
                while self.peek().is_some_and(|c| c != '\n') {
                    self.bump();
                }
            } else if c == '\\' {
                let start = self.pos;
                self.bump();
                if self.peek() == Some('\r') {
                    self.bump();
                }
                if self.bump() != Some('\n') {
                    return Err(self.err(
                        start,
                        start + 1,
                        "unexpected character after line continuation character",
                    ));
                }
            } else if c.is_whitespace() {
                self.bump();
            } else {
                break;
            }
        }
        Ok(())
    }

    fn operator(&mut self) -> Result<TokenKind> {
        let start = self.pos;
        let rest = self.rest();
        let Some(op) = OPERATORS.iter().find(|op| rest.starts_with(**op)) else {
            let c = self.peek().unwrap_or('?');
            return Err(self.err(
                start,
                start + c.len_utf8(),
                format!("invalid character '{c}' (U+{:04X})", c as u32),
            ));
        };
        self.pos += op.len();
        match *op {
            "!" | "`" => Err(self.err(start, self.pos, "invalid syntax")),
            ":=" => Err(self.err(
                start,
                self.pos,
                "assignment expressions (`:=`) are not supported: write `name = value` as a \
                 statement",
            )),
            "->" => Err(self.err(start, self.pos, "invalid syntax")),
            _ => Ok(TokenKind::Op(op)),
        }
    }

    fn word(&mut self) -> Result<TokenKind> {
        let start = self.pos;
        while self.peek().is_some_and(is_ident_continue) {
            self.bump();
        }
        let word = &self.src[start..self.pos];
        if matches!(self.peek(), Some('\'' | '"')) {
            let prefix = word.to_ascii_lowercase();
            match prefix.as_str() {
                "r" => return self.string(true),
                "u" => return self.string(false),
                "b" | "br" | "rb" => {
                    return Err(self.err(start, self.pos, "bytes literals are not supported"))
                }
                "f" | "fr" | "rf" | "t" | "tr" | "rt" => {
                    return Err(self.err(start, self.pos, "f-strings are not supported"))
                }
                _ => {}
            }
        }
        Ok(match word {
            "True" => TokenKind::True,
            "False" => TokenKind::False,
            "None" => TokenKind::None,
            "and" => TokenKind::And,
            "or" => TokenKind::Or,
            "not" => TokenKind::Not,
            _ => match RESERVED.iter().find(|k| **k == word) {
                Some(k) => TokenKind::Reserved(k),
                None => TokenKind::Name(word.to_string()),
            },
        })
    }

    /// Digits of `radix` with single underscores between them; returns them without
    /// underscores. `allow_leading_underscore` is for the digits after `0x`.
    fn digits(&mut self, radix: u32, allow_leading_underscore: bool) -> Result<String> {
        let mut out = String::new();
        loop {
            match self.peek() {
                Some(c) if c.is_digit(radix) => {
                    out.push(c);
                    self.bump();
                }
                Some('_') if !out.is_empty() || allow_leading_underscore => {
                    let at = self.pos;
                    self.bump();
                    if !self.peek().is_some_and(|c| c.is_digit(radix)) {
                        return Err(self.err(at, at + 1, invalid_literal(radix)));
                    }
                }
                _ => return Ok(out),
            }
        }
    }

    fn number(&mut self) -> Result<TokenKind> {
        let start = self.pos;
        let radix = match (self.peek(), self.peek_at(1)) {
            (Some('0'), Some('x' | 'X')) => 16,
            (Some('0'), Some('o' | 'O')) => 8,
            (Some('0'), Some('b' | 'B')) => 2,
            _ => 10,
        };
        if radix != 10 {
            self.pos += 2;
            let digits = self.digits(radix, true)?;
            if digits.is_empty() || self.peek().is_some_and(is_ident_continue) {
                return Err(self.err(start, self.pos + 1, invalid_literal(radix)));
            }
            return match i128::from_str_radix(&digits, radix) {
                Ok(v) => Ok(TokenKind::Int(v)),
                Err(_) => Err(self.err(start, self.pos, too_large())),
            };
        }
        let int_part = self.digits(10, false)?;
        let mut is_float = false;
        let mut frac_part = String::new();
        if self.peek() == Some('.') {
            is_float = true;
            self.bump();
            if self.peek().is_some_and(|c| c.is_ascii_digit()) {
                frac_part = self.digits(10, false)?;
            }
        }
        let mut exp_part = String::new();
        if matches!(self.peek(), Some('e' | 'E')) {
            let after_sign = match self.peek_at(1) {
                Some('+' | '-') => self.peek_at(2),
                other => other,
            };
            if after_sign.is_some_and(|c| c.is_ascii_digit()) {
                is_float = true;
                self.bump();
                if let Some(sign @ ('+' | '-')) = self.peek() {
                    exp_part.push(sign);
                    self.bump();
                }
                exp_part.push_str(&self.digits(10, false)?);
            } else {
                return Err(self.err(start, self.pos + 1, "invalid decimal literal"));
            }
        }
        let imag = matches!(self.peek(), Some('j' | 'J'));
        if imag {
            self.bump();
        }
        if self.peek().is_some_and(is_ident_continue) {
            return Err(self.err(start, self.pos + 1, "invalid decimal literal"));
        }
        if !is_float && !imag {
            if int_part.starts_with('0') && int_part.bytes().any(|b| b != b'0') {
                return Err(self.err(
                    start,
                    self.pos,
                    "leading zeros in decimal integer literals are not permitted; use an 0o \
                     prefix for octal integers",
                ));
            }
            return match int_part.parse::<i128>() {
                Ok(v) => Ok(TokenKind::Int(v)),
                Err(_) => Err(self.err(start, self.pos, too_large())),
            };
        }
        let text = format!(
            "{}.{}e{}",
            if int_part.is_empty() { "0" } else { &int_part },
            if frac_part.is_empty() {
                "0"
            } else {
                &frac_part
            },
            if exp_part.is_empty() { "0" } else { &exp_part },
        );
        let value: f64 = text
            .parse()
            .map_err(|_| self.err(start, self.pos, "invalid decimal literal"))?;
        Ok(if imag {
            TokenKind::Imag(value)
        } else {
            TokenKind::Float(value)
        })
    }

    fn string(&mut self, raw: bool) -> Result<TokenKind> {
        let start = self.pos;
        let Some(quote) = self.bump() else {
            return Err(self.err(start, start, "unterminated string literal"));
        };
        let triple = self.peek() == Some(quote) && self.peek_at(1) == Some(quote);
        if triple {
            self.pos += 2;
        }
        let mut out = String::new();
        loop {
            let Some(c) = self.bump() else {
                let msg = if triple {
                    "unterminated triple-quoted string literal"
                } else {
                    "unterminated string literal"
                };
                return Err(self.err(start, start + 1, msg));
            };
            if c == quote {
                if !triple {
                    return Ok(TokenKind::Str(out));
                }
                if self.peek() == Some(quote) && self.peek_at(1) == Some(quote) {
                    self.pos += 2;
                    return Ok(TokenKind::Str(out));
                }
                out.push(c);
            } else if c == '\n' && !triple {
                return Err(self.err(start, start + 1, "unterminated string literal"));
            } else if c == '\\' {
                let esc_start = self.pos - 1;
                let Some(e) = self.bump() else {
                    return Err(self.err(start, start + 1, "unterminated string literal"));
                };
                if raw {
                    out.push('\\');
                    out.push(e);
                    continue;
                }
                match e {
                    '\n' => {}
                    '\\' | '\'' | '"' => out.push(e),
                    'a' => out.push('\x07'),
                    'b' => out.push('\x08'),
                    'f' => out.push('\x0c'),
                    'n' => out.push('\n'),
                    'r' => out.push('\r'),
                    't' => out.push('\t'),
                    'v' => out.push('\x0b'),
                    '0'..='7' => {
                        let mut v = e.to_digit(8).unwrap_or(0);
                        for _ in 0..2 {
                            match self.peek().and_then(|c| c.to_digit(8)) {
                                Some(d) => {
                                    v = v * 8 + d;
                                    self.bump();
                                }
                                None => break,
                            }
                        }
                        out.push(char::from_u32(v).unwrap_or('\u{fffd}'));
                    }
                    'x' | 'u' | 'U' => {
                        let n = match e {
                            'x' => 2,
                            'u' => 4,
                            _ => 8,
                        };
                        let mut v = 0u32;
                        for _ in 0..n {
                            match self.peek().and_then(|c| c.to_digit(16)) {
                                Some(d) => {
                                    v = v.wrapping_mul(16).wrapping_add(d);
                                    self.bump();
                                }
                                None => {
                                    return Err(self.err(
                                        esc_start,
                                        self.pos,
                                        format!("truncated \\{e} escape in string literal"),
                                    ))
                                }
                            }
                        }
                        match char::from_u32(v) {
                            Some(ch) => out.push(ch),
                            None => {
                                return Err(self.err(
                                    esc_start,
                                    self.pos,
                                    "illegal Unicode character in string literal",
                                ))
                            }
                        }
                    }
                    'N' => {
                        return Err(self.err(
                            esc_start,
                            self.pos,
                            "\\N{...} escapes are not supported",
                        ))
                    }
                    other => {
                        out.push('\\');
                        out.push(other);
                    }
                }
            } else {
                out.push(c);
            }
        }
    }
}

fn invalid_literal(radix: u32) -> &'static str {
    match radix {
        16 => "invalid hexadecimal literal",
        8 => "invalid octal literal",
        2 => "invalid binary literal",
        _ => "invalid decimal literal",
    }
}

fn too_large() -> &'static str {
    "integer literal too large (kupfer eval's Python ints are 128-bit)"
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<TokenKind> {
        tokenize(src)
            .unwrap()
            .into_iter()
            .map(|t| t.kind)
            .filter(|k| *k != TokenKind::Eof)
            .collect()
    }

    fn err(src: &str) -> String {
        tokenize(src).unwrap_err().to_string()
    }

    #[test]
    fn numbers() {
        use TokenKind::*;
        assert_eq!(kinds("1_000"), [Int(1000)]);
        assert_eq!(
            kinds("0x1F 0o17 0b101 0X_ff"),
            [Int(31), Int(15), Int(5), Int(255)]
        );
        assert_eq!(kinds("00 0_0"), [Int(0), Int(0)]);
        assert_eq!(kinds("1e-3"), [Float(1e-3)]);
        assert_eq!(
            kinds(".5 1. 1.e2 1_0.2_5"),
            [Float(0.5), Float(1.0), Float(100.0), Float(10.25)]
        );
        assert_eq!(kinds("09.5 09e1"), [Float(9.5), Float(90.0)]);
        assert_eq!(
            kinds("1j 2.5j 1e3J 010j"),
            [Imag(1.0), Imag(2.5), Imag(1000.0), Imag(10.0)]
        );
        assert_eq!(kinds("1e999"), [Float(f64::INFINITY)]);
        assert_eq!(kinds("9223372036854775807"), [Int(i64::MAX.into())]);
        assert_eq!(
            kinds("18446744073709551616 0xFFFFFFFFFFFFFFFF"),
            [Int(1 << 64), Int(u64::MAX.into())]
        );
        assert!(err("1701411834604692317316873037158841057280").contains("too large"));
    }

    #[test]
    fn bad_numbers() {
        assert!(err("0777").contains("leading zeros"));
        assert!(err("1__0").contains("invalid decimal literal"));
        assert!(err("1_").contains("invalid decimal literal"));
        assert!(err("1e").contains("invalid decimal literal"));
        assert!(err("1abc").contains("invalid decimal literal"));
        assert!(err("0x").contains("invalid hexadecimal literal"));
        assert!(err("0xg").contains("invalid hexadecimal literal"));
        assert!(err("0b2").contains("invalid binary literal"));
        assert!(err("170141183460469231731687303715884105728").contains("too large"));
    }

    #[test]
    fn strings() {
        use TokenKind::*;
        assert_eq!(
            kinds(r#"'a' "b\n" r'\n' '\x41\u00e9\101'"#),
            [
                Str("a".into()),
                Str("b\n".into()),
                Str("\\n".into()),
                Str("AéA".into())
            ]
        );
        assert_eq!(kinds("'''a'b\nc'''"), [Str("a'b\nc".into())]);
        assert!(err("'abc").contains("unterminated string literal"));
        assert!(err("b'x'").contains("bytes"));
        assert!(err("f'x'").contains("f-strings"));
    }

    #[test]
    fn operators_and_words() {
        use TokenKind::*;
        assert_eq!(
            kinds("a**-b//c"),
            [
                Name("a".into()),
                Op("**"),
                Op("-"),
                Name("b".into()),
                Op("//"),
                Name("c".into())
            ]
        );
        assert_eq!(
            kinds("x[...,None]"),
            [Name("x".into()), Op("["), Op("..."), Op(","), None, Op("]")]
        );
        assert_eq!(
            kinds("not in lambda"),
            [Not, Reserved("in"), Reserved("lambda")]
        );
        assert_eq!(
            kinds("a # comment\n + \\\n b"),
            [Name("a".into()), Op("+"), Name("b".into())]
        );
        assert_eq!(
            kinds("a += 1"),
            [Name("a".into()), Op("+="), Int(1)],
            "augmented assignment is a statement's operator"
        );
        assert!(err("(a := 1)").contains("assignment expressions"));
        assert!(err("a $ b").contains("invalid character '$'"));
    }

    #[test]
    fn spans() {
        let t = tokenize("ab + 1.5").unwrap();
        assert_eq!(t[0].span, Span::new(0, 2));
        assert_eq!(t[1].span, Span::new(3, 4));
        assert_eq!(t[2].span, Span::new(5, 8));
        assert_eq!(t[3].span, Span::new(8, 8));
    }
}
