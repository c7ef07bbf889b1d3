//! An integer calculator with variables: `let x = 2 * (3 + 4)`, `x % 5`, `max(x, 10)`.
//!
//! All arithmetic is on i64 and checked: overflow and division by zero are errors, never wrap-arounds.
//! Comparisons (`==`, `!=`, `<`, `<=`, `>`, `>=`) give 1 or 0. Built-in functions: `abs(x)`,
//! `min(a, b)`, `max(a, b)`.

pub mod ast;
pub mod error;
pub mod eval;
pub mod lexer;

pub use error::CalcError;

use ast::{Parser, Stmt};

/// What one input line produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Output {
    /// The value of an expression or of an assignment.
    Value(i64),
}

/// A calculator session: variables persist between lines.
#[derive(Debug, Default)]
pub struct Interpreter {
    vars: eval::Vars,
}

impl Interpreter {
    pub fn new() -> Self {
        Self::default()
    }

    /// Evaluates one line. A failed line changes nothing.
    pub fn eval_line(&mut self, line: &str) -> Result<Output, CalcError> {
        let tokens = lexer::tokenize(line)?;
        let stmt = Parser::new(tokens, line.len()).statement()?;
        match stmt {
            Stmt::Assign(name, expr) => {
                let value = eval::eval(&expr, &self.vars)?;
                self.vars.insert(name, value);
                Ok(Output::Value(value))
            }
            Stmt::Expr(expr) => Ok(Output::Value(eval::eval(&expr, &self.vars)?)),
        }
    }

    /// The value of a variable, if set.
    pub fn var(&self, name: &str) -> Option<i64> {
        self.vars.get(name).copied()
    }
}
