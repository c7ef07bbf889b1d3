//! Errors of the calculator.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CalcError {
    /// A syntax error at a byte offset of the input line.
    Parse { pos: usize, msg: String },
    UnknownVariable(String),
    UnknownFunction(String),
    /// A function called with the wrong number of arguments.
    Arity { name: String, expected: usize, got: usize },
    DivisionByZero,
    Overflow,
}

impl fmt::Display for CalcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CalcError::Parse { pos, msg } => write!(f, "syntax error at {}: {}", pos, msg),
            CalcError::UnknownVariable(name) => write!(f, "unknown variable '{}'", name),
            CalcError::UnknownFunction(name) => write!(f, "unknown function '{}'", name),
            CalcError::Arity { name, expected, got } => {
                write!(f, "{}() takes {} argument(s), got {}", name, expected, got)
            }
            CalcError::DivisionByZero => write!(f, "division by zero"),
            CalcError::Overflow => write!(f, "integer overflow"),
        }
    }
}

impl std::error::Error for CalcError {}
