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

pub fn eval(expr: &Expr, vars: &Vars) -> Result<i64, CalcError> {
    match expr {
        Expr::Num(n) => Ok(*n),
        Expr::Var(name) => vars.get(name).copied().ok_or_else(|| CalcError::UnknownVariable(name.clone())),
        Expr::Neg(inner) => eval(inner, vars)?.checked_neg().ok_or(CalcError::Overflow),
        Expr::Bin(op, a, b) => {
            let a = eval(a, vars)?;
            let b = eval(b, vars)?;
            arith(op, a, b)
        }
        Expr::Call(name, args) => {
            let values = args.iter().map(|a| eval(a, vars)).collect::<Result<Vec<_>, _>>()?;
            builtin(name, &values)
        }
    }
}
