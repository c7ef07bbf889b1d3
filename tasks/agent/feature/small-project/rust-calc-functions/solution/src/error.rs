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
    /// A user function may not take the name of a built-in.
    Reserved(String),
    /// User function calls nested deeper than the limit.
    RecursionLimit,
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
            CalcError::Reserved(name) => write!(f, "'{}' is a built-in function and cannot be redefined", name),
            CalcError::RecursionLimit => write!(f, "function calls nested too deeply"),
        }
    }
}

impl std::error::Error for CalcError {}
