use std::io::{self, BufRead, Write};

use intcalc::{Interpreter, Output};

fn main() {
    let mut calc = Interpreter::new();
    let stdin = io::stdin();
    let mut out = io::stdout();
    for line in stdin.lock().lines() {
        let line = match line {
            Ok(l) => l,
            Err(_) => break,
        };
        if line.trim().is_empty() {
            continue;
        }
        match calc.eval_line(&line) {
            Ok(Output::Value(v)) => writeln!(out, "{}", v).ok(),
            Err(e) => writeln!(out, "error: {}", e).ok(),
        };
    }
}
