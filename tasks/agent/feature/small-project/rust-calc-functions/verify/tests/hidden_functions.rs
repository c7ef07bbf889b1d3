use intcalc::{CalcError, Interpreter, Output};
use std::io::Write;
use std::process::{Command, Stdio};

fn ok(c: &mut Interpreter, line: &str) -> i64 {
    match c.eval_line(line) {
        Ok(Output::Value(v)) => v,
        other => panic!("{:?} for {:?}", other, line),
    }
}

fn def(c: &mut Interpreter, line: &str, sig: &str) {
    assert_eq!(c.eval_line(line), Ok(Output::Defined(sig.to_string())), "{}", line);
}

/// Runs `f` on a thread with a large stack, so a correct tree-walking evaluator never overflows.
fn big_stack<F: FnOnce() + Send + 'static>(f: F) {
    std::thread::Builder::new().stack_size(256 << 20).spawn(f).unwrap().join().unwrap();
}

#[test]
fn signatures_and_redefinition() {
    let mut c = Interpreter::new();
    def(&mut c, "fn seven() = 7", "seven()");
    assert_eq!(ok(&mut c, "seven() * 2"), 14);
    def(&mut c, "fn area(w,h)=w*h", "area(w, h)");
    def(&mut c, "fn  area ( a , b , c ) = a * b * c", "area(a, b, c)");
    assert_eq!(ok(&mut c, "area(2, 3, 4)"), 24);
    assert_eq!(c.eval_line("area(2, 3)"), Err(CalcError::Arity { name: "area".into(), expected: 3, got: 2 }));
    assert_eq!(c.functions(), vec!["area(a, b, c)".to_string(), "seven()".to_string()]);
}

#[test]
fn scoping() {
    let mut c = Interpreter::new();
    ok(&mut c, "let k = 2");
    ok(&mut c, "let x = 100");
    def(&mut c, "fn scale(x) = x * k", "scale(x)");
    assert_eq!(ok(&mut c, "scale(3)"), 6);
    ok(&mut c, "k = 5");
    assert_eq!(ok(&mut c, "scale(3)"), 15, "globals are read at call time");
    assert_eq!(ok(&mut c, "x"), 100, "parameters do not leak or overwrite globals");
    def(&mut c, "fn leak() = q", "leak()");
    assert_eq!(c.eval_line("leak()"), Err(CalcError::UnknownVariable("q".into())));
    def(&mut c, "fn inner(y) = y + x", "inner(y)");
    def(&mut c, "fn outer(x) = inner(1)", "outer(x)");
    assert_eq!(ok(&mut c, "outer(5)"), 101, "a callee sees globals, not the caller's parameters");
}

#[test]
fn forward_references_and_mutual_recursion() {
    let mut c = Interpreter::new();
    def(&mut c, "fn is_even(n) = if(n == 0, 1, is_odd(n - 1))", "is_even(n)");
    assert_eq!(c.eval_line("is_even(3)"), Err(CalcError::UnknownFunction("is_odd".into())));
    def(&mut c, "fn is_odd(n) = if(n == 0, 0, is_even(n - 1))", "is_odd(n)");
    assert_eq!(ok(&mut c, "is_even(10)"), 1);
    assert_eq!(ok(&mut c, "is_odd(7)"), 1);
    def(&mut c, "fn fib(n) = if(n < 2, n, fib(n - 1) + fib(n - 2))", "fib(n)");
    assert_eq!(ok(&mut c, "fib(20)"), 6765);
    def(&mut c, "fn gcd(a, b) = if(b == 0, abs(a), gcd(b, a % b))", "gcd(a, b)");
    assert_eq!(ok(&mut c, "gcd(1071, -462)"), 21);
}

#[test]
fn lazy_if() {
    let mut c = Interpreter::new();
    assert_eq!(ok(&mut c, "if(1, 5, 1 / 0)"), 5);
    assert_eq!(ok(&mut c, "if(0, 1 / 0, 7)"), 7);
    assert_eq!(ok(&mut c, "if(-3, 4, 2)"), 4, "any non-zero condition is true");
}

#[test]
fn lazy_if_only_evaluates_the_chosen_branch() {
    let mut c = Interpreter::new();
    assert_eq!(c.eval_line("if(1, 2, missing)"), Ok(Output::Value(2)));
    assert_eq!(c.eval_line("if(0, missing, 3)"), Ok(Output::Value(3)));
    assert_eq!(c.eval_line("if(missing, 1, 2)"), Err(CalcError::UnknownVariable("missing".into())));
    assert_eq!(c.eval_line("if(1, 2)"), Err(CalcError::Arity { name: "if".into(), expected: 3, got: 2 }));
    assert_eq!(c.eval_line("if(1, 2, 3, 4)"), Err(CalcError::Arity { name: "if".into(), expected: 3, got: 4 }));
    assert_eq!(ok(&mut c, "if(2 > 1, if(0, 1, 2), 3) * 10"), 20);
}

#[test]
fn errors_at_definition_change_nothing() {
    let mut c = Interpreter::new();
    def(&mut c, "fn f(a) = a", "f(a)");
    for line in ["fn f(a, a) = 1", "fn g(a,) = 1", "fn g(1) = 2", "fn g a = 1", "fn (a) = 1", "fn g(a) 1", "fn g(a) ="] {
        assert!(matches!(c.eval_line(line), Err(CalcError::Parse { .. })), "{} should be a syntax error", line);
    }
    for name in ["abs", "min", "max", "if"] {
        assert_eq!(c.eval_line(&format!("fn {}(x) = x", name)), Err(CalcError::Reserved(name.to_string())));
    }
    assert_eq!(c.functions(), vec!["f(a)".to_string()]);
    assert_eq!(ok(&mut c, "min(3, 4) + abs(-1) + max(1, 2)"), 6, "built-ins keep working");
    assert_eq!(c.eval_line("g(1)"), Err(CalcError::UnknownFunction("g".into())));
}

#[test]
fn arguments_left_to_right() {
    let mut c = Interpreter::new();
    def(&mut c, "fn first(a, b) = a", "first(a, b)");
    assert_eq!(c.eval_line("first(1 / 0, y)"), Err(CalcError::DivisionByZero));
    assert_eq!(c.eval_line("first(y, 1 / 0)"), Err(CalcError::UnknownVariable("y".into())));
    def(&mut c, "fn big(n) = n * 9223372036854775807", "big(n)");
    assert_eq!(c.eval_line("big(2)"), Err(CalcError::Overflow));
    assert_eq!(c.eval_line("let z = big(1)"), Ok(Output::Value(9223372036854775807)));
}

#[test]
fn recursion_limit() {
    big_stack(|| {
        let mut c = Interpreter::new();
        def(&mut c, "fn count(n) = if(n == 0, 0, 1 + count(n - 1))", "count(n)");
        assert_eq!(ok(&mut c, "count(150)"), 150);
        assert_eq!(c.eval_line("count(500)"), Err(CalcError::RecursionLimit));
        def(&mut c, "fn forever(x) = forever(x + 1)", "forever(x)");
        assert_eq!(c.eval_line("forever(0)"), Err(CalcError::RecursionLimit));
        def(&mut c, "fn ping(n) = pong(n)", "ping(n)");
        def(&mut c, "fn pong(n) = ping(n) + 1", "pong(n)");
        assert_eq!(c.eval_line("let r = ping(1)"), Err(CalcError::RecursionLimit));
        assert_eq!(c.var("r"), None);
        assert_eq!(ok(&mut c, "count(100) + count(100)"), 200, "the session stays usable");
    });
}

#[test]
fn new_errors_display() {
    let a = CalcError::Reserved("min".into()).to_string();
    let b = CalcError::RecursionLimit.to_string();
    assert!(a.contains("min") && !b.is_empty() && a != b);
}

#[test]
fn repl_prints_definitions() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_intcalc"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run the REPL");
    child.stdin.take().unwrap().write_all(b"fn sq(x) = x * x\nsq(12)\nif(1)\n").unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "defined sq(x)");
    assert_eq!(lines[1], "144");
    assert!(lines[2].starts_with("error: "));
}
