//! Syntax tree and parser (precedence climbing).
//!
//! Grammar: statement := `fn` NAME "(" params ")" `=` expr | `let` NAME `=` expr | NAME `=` expr | expr
//! expr := comparison; comparison := sum (("=="|"!="|"<"|"<="|">"|">=") sum)?
//! sum := term (("+"|"-") term)*; term := unary (("*"|"/"|"%") unary)*
//! unary := "-" unary | primary; primary := NUM | NAME | NAME "(" args ")" | "(" expr ")"

use crate::error::CalcError;
use crate::lexer::{Tok, Token};

#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Num(i64),
    Var(String),
    Neg(Box<Expr>),
    Bin(&'static str, Box<Expr>, Box<Expr>),
    Call(String, Vec<Expr>),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Stmt {
    Def(String, Vec<String>, Expr),
    Assign(String, Expr),
    Expr(Expr),
}

pub struct Parser {
    tokens: Vec<Token>,
    pos: usize,
    end: usize,
}

impl Parser {
    pub fn new(tokens: Vec<Token>, line_len: usize) -> Self {
        Parser { tokens, pos: 0, end: line_len }
    }

    fn peek(&self) -> Option<&Tok> {
        self.tokens.get(self.pos).map(|t| &t.tok)
    }

    fn here(&self) -> usize {
        self.tokens.get(self.pos).map(|t| t.pos).unwrap_or(self.end)
    }

    fn error<T>(&self, msg: &str) -> Result<T, CalcError> {
        Err(CalcError::Parse { pos: self.here(), msg: msg.to_string() })
    }

    fn expect(&mut self, tok: Tok, what: &str) -> Result<(), CalcError> {
        if self.peek() == Some(&tok) {
            self.pos += 1;
            Ok(())
        } else {
            self.error(&format!("expected {}", what))
        }
    }

    pub fn statement(&mut self) -> Result<Stmt, CalcError> {
        let stmt = match (self.tokens.get(self.pos).map(|t| &t.tok), self.tokens.get(self.pos + 1).map(|t| &t.tok)) {
            (Some(Tok::Ident(kw)), Some(Tok::Ident(name))) if kw == "fn" => {
                let name = name.clone();
                self.pos += 2;
                let params = self.params()?;
                self.expect(Tok::Assign, "'='")?;
                Stmt::Def(name, params, self.expr()?)
            }
            (Some(Tok::Ident(kw)), Some(Tok::Ident(name))) if kw == "let" => {
                let name = name.clone();
                self.pos += 2;
                self.expect(Tok::Assign, "'='")?;
                Stmt::Assign(name, self.expr()?)
            }
            (Some(Tok::Ident(name)), Some(Tok::Assign)) => {
                let name = name.clone();
                self.pos += 2;
                Stmt::Assign(name, self.expr()?)
            }
            _ => Stmt::Expr(self.expr()?),
        };
        if self.pos < self.tokens.len() {
            return self.error("unexpected input after the expression");
        }
        Ok(stmt)
    }

    /// `( NAME, NAME, ... )` with distinct names.
    fn params(&mut self) -> Result<Vec<String>, CalcError> {
        self.expect(Tok::LParen, "'('")?;
        let mut params: Vec<String> = Vec::new();
        while self.peek() != Some(&Tok::RParen) {
            if !params.is_empty() {
                self.expect(Tok::Comma, "',' or ')'")?;
            }
            match self.peek().cloned() {
                Some(Tok::Ident(p)) => {
                    if params.contains(&p) {
                        return self.error(&format!("parameter '{}' appears twice", p));
                    }
                    params.push(p);
                    self.pos += 1;
                }
                _ => return self.error("expected a parameter name"),
            }
        }
        self.pos += 1;
        Ok(params)
    }

    pub fn expr(&mut self) -> Result<Expr, CalcError> {
        let left = self.sum()?;
        if let Some(Tok::Op(op)) = self.peek() {
            let op = *op;
            if ["==", "!=", "<", "<=", ">", ">="].contains(&op) {
                self.pos += 1;
                let right = self.sum()?;
                return Ok(Expr::Bin(op, Box::new(left), Box::new(right)));
            }
        }
        Ok(left)
    }

    fn sum(&mut self) -> Result<Expr, CalcError> {
        let mut left = self.term()?;
        while let Some(Tok::Op(op)) = self.peek() {
            let op = *op;
            if op != "+" && op != "-" {
                break;
            }
            self.pos += 1;
            let right = self.term()?;
            left = Expr::Bin(op, Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn term(&mut self) -> Result<Expr, CalcError> {
        let mut left = self.unary()?;
        while let Some(Tok::Op(op)) = self.peek() {
            let op = *op;
            if op != "*" && op != "/" && op != "%" {
                break;
            }
            self.pos += 1;
            let right = self.unary()?;
            left = Expr::Bin(op, Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn unary(&mut self) -> Result<Expr, CalcError> {
        if self.peek() == Some(&Tok::Op("-")) {
            self.pos += 1;
            return Ok(Expr::Neg(Box::new(self.unary()?)));
        }
        self.primary()
    }

    fn primary(&mut self) -> Result<Expr, CalcError> {
        match self.peek().cloned() {
            Some(Tok::Num(n)) => {
                self.pos += 1;
                Ok(Expr::Num(n))
            }
            Some(Tok::Ident(name)) => {
                self.pos += 1;
                if self.peek() == Some(&Tok::LParen) {
                    self.pos += 1;
                    let mut args = Vec::new();
                    if self.peek() != Some(&Tok::RParen) {
                        loop {
                            args.push(self.expr()?);
                            if self.peek() == Some(&Tok::Comma) {
                                self.pos += 1;
                                continue;
                            }
                            break;
                        }
                    }
                    self.expect(Tok::RParen, "')'")?;
                    return Ok(Expr::Call(name, args));
                }
                Ok(Expr::Var(name))
            }
            Some(Tok::LParen) => {
                self.pos += 1;
                let inner = self.expr()?;
                self.expect(Tok::RParen, "')'")?;
                Ok(inner)
            }
            _ => self.error("expected a number, a name or '('"),
        }
    }
}
