//! Evaluation of expressions with checked integer arithmetic.

use std::collections::HashMap;

use crate::ast::Expr;
use crate::error::CalcError;

pub type Vars = HashMap<String, i64>;

fn arith(op: &str, a: i64, b: i64) -> Result<i64, CalcError> {
    let result = match op {
        "+" => a.checked_add(b),
        "-" => a.checked_sub(b),
        "*" => a.checked_mul(b),
        "/" | "%" if b == 0 => return Err(CalcError::DivisionByZero),
        "/" => a.checked_div(b),
        "%" => a.checked_rem(b),
        "==" => Some((a == b) as i64),
        "!=" => Some((a != b) as i64),
        "<" => Some((a < b) as i64),
        "<=" => Some((a <= b) as i64),
        ">" => Some((a > b) as i64),
        ">=" => Some((a >= b) as i64),
        _ => unreachable!("unknown operator {}", op),
    };
    result.ok_or(CalcError::Overflow)
}

/// A user-defined function.
#[derive(Debug, Clone)]
pub struct Function {
    pub params: Vec<String>,
    pub body: Expr,
}

pub type Funcs = HashMap<String, Function>;

/// Names user functions may not take.
pub const BUILTINS: [&str; 4] = ["abs", "min", "max", "if"];

/// How deep user function calls may nest.
pub const MAX_DEPTH: usize = 200;

fn builtin(name: &str, args: &[i64]) -> Result<i64, CalcError> {
    let want = match name {
        "abs" => 1,
        "min" | "max" => 2,
        _ => return Err(CalcError::UnknownFunction(name.to_string())),
    };
    if args.len() != want {
        return Err(CalcError::Arity { name: name.to_string(), expected: want, got: args.len() });
    }
    match name {
        "abs" => args[0].checked_abs().ok_or(CalcError::Overflow),
        "min" => Ok(args[0].min(args[1])),
        _ => Ok(args[0].max(args[1])),
    }
}

/// Everything an expression can see: globals, functions, and the parameters of the current call.
pub struct Scope<'a> {
    pub vars: &'a Vars,
    pub funcs: &'a Funcs,
    pub locals: Option<&'a HashMap<String, i64>>,
    pub depth: usize,
}

pub fn eval(expr: &Expr, scope: &Scope) -> Result<i64, CalcError> {
    match expr {
        Expr::Num(n) => Ok(*n),
        Expr::Var(name) => scope
            .locals
            .and_then(|l| l.get(name))
            .or_else(|| scope.vars.get(name))
            .copied()
            .ok_or_else(|| CalcError::UnknownVariable(name.clone())),
        Expr::Neg(inner) => eval(inner, scope)?.checked_neg().ok_or(CalcError::Overflow),
        Expr::Bin(op, a, b) => {
            let a = eval(a, scope)?;
            let b = eval(b, scope)?;
            arith(op, a, b)
        }
        Expr::Call(name, args) if name == "if" => {
            if args.len() != 3 {
                return Err(CalcError::Arity { name: name.clone(), expected: 3, got: args.len() });
            }
            if eval(&args[0], scope)? != 0 {
                eval(&args[1], scope)
            } else {
                eval(&args[2], scope)
            }
        }
        Expr::Call(name, args) => {
            let values = args.iter().map(|a| eval(a, scope)).collect::<Result<Vec<_>, _>>()?;
            match scope.funcs.get(name) {
                Some(f) if !BUILTINS.contains(&name.as_str()) => call(name, f, values, scope),
                _ => builtin(name, &values),
            }
        }
    }
}

fn call(name: &str, f: &Function, values: Vec<i64>, scope: &Scope) -> Result<i64, CalcError> {
    if values.len() != f.params.len() {
        return Err(CalcError::Arity { name: name.to_string(), expected: f.params.len(), got: values.len() });
    }
    if scope.depth >= MAX_DEPTH {
        return Err(CalcError::RecursionLimit);
    }
    let locals: HashMap<String, i64> = f.params.iter().cloned().zip(values).collect();
    let inner = Scope { vars: scope.vars, funcs: scope.funcs, locals: Some(&locals), depth: scope.depth + 1 };
    eval(&f.body, &inner)
}
