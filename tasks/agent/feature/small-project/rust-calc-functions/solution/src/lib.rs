//! An integer calculator with variables: `let x = 2 * (3 + 4)`, `x % 5`, `max(x, 10)`.
//!
//! All arithmetic is on i64 and checked: overflow and division by zero are errors, never wrap-arounds.
//! Comparisons (`==`, `!=`, `<`, `<=`, `>`, `>=`) give 1 or 0. Built-in functions: `abs(x)`,
//! `min(a, b)`, `max(a, b)` and the lazy `if(cond, a, b)`; `fn f(a, b) = a * b + g(a)` defines
//! user functions (recursion allowed, nesting limited to `eval::MAX_DEPTH` calls).

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
    /// A function definition: its signature, e.g. `area(w, h)`.
    Defined(String),
}

/// A calculator session: variables persist between lines.
#[derive(Debug, Default)]
pub struct Interpreter {
    vars: eval::Vars,
    funcs: eval::Funcs,
}

fn signature(name: &str, f: &eval::Function) -> String {
    format!("{}({})", name, f.params.join(", "))
}

impl Interpreter {
    pub fn new() -> Self {
        Self::default()
    }

    /// Evaluates one line. A failed line changes nothing.
    pub fn eval_line(&mut self, line: &str) -> Result<Output, CalcError> {
        let tokens = lexer::tokenize(line)?;
        let stmt = Parser::new(tokens, line.len()).statement()?;
        let scope = eval::Scope { vars: &self.vars, funcs: &self.funcs, locals: None, depth: 0 };
        match stmt {
            Stmt::Def(name, params, body) => {
                if eval::BUILTINS.contains(&name.as_str()) {
                    return Err(CalcError::Reserved(name));
                }
                let f = eval::Function { params, body };
                let sig = signature(&name, &f);
                self.funcs.insert(name, f);
                Ok(Output::Defined(sig))
            }
            Stmt::Assign(name, expr) => {
                let value = eval::eval(&expr, &scope)?;
                self.vars.insert(name, value);
                Ok(Output::Value(value))
            }
            Stmt::Expr(expr) => Ok(Output::Value(eval::eval(&expr, &scope)?)),
        }
    }

    /// The value of a variable, if set.
    pub fn var(&self, name: &str) -> Option<i64> {
        self.vars.get(name).copied()
    }

    /// Signatures of the user functions, sorted by name.
    pub fn functions(&self) -> Vec<String> {
        let mut names: Vec<&String> = self.funcs.keys().collect();
        names.sort();
        names.into_iter().map(|n| signature(n, &self.funcs[n])).collect()
    }
}
