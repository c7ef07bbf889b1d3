//! Splits an input line into tokens.

use crate::error::CalcError;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tok {
    Num(i64),
    Ident(String),
    Op(&'static str),
    LParen,
    RParen,
    Comma,
    Assign,
}

#[derive(Debug, Clone)]
pub struct Token {
    pub tok: Tok,
    pub pos: usize,
}

const OPS: [&str; 11] = ["==", "!=", "<=", ">=", "<", ">", "+", "-", "*", "/", "%"];

pub fn tokenize(line: &str) -> Result<Vec<Token>, CalcError> {
    let bytes = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    'outer: while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c.is_ascii_digit() {
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            let value = line[start..i].parse::<i64>().map_err(|_| CalcError::Overflow)?;
            out.push(Token { tok: Tok::Num(value), pos: start });
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            out.push(Token { tok: Tok::Ident(line[start..i].to_string()), pos: start });
            continue;
        }
        for op in OPS.iter() {
            if line[i..].starts_with(op) {
                out.push(Token { tok: Tok::Op(op), pos: i });
                i += op.len();
                continue 'outer;
            }
        }
        let tok = match c {
            b'(' => Tok::LParen,
            b')' => Tok::RParen,
            b',' => Tok::Comma,
            b'=' => Tok::Assign,
            _ => return Err(CalcError::Parse { pos: i, msg: format!("unexpected character '{}'", c as char) }),
        };
        out.push(Token { tok, pos: i });
        i += 1;
    }
    Ok(out)
}
