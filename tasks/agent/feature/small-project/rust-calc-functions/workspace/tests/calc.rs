use intcalc::{CalcError, Interpreter, Output};

fn value(calc: &mut Interpreter, line: &str) -> i64 {
    match calc.eval_line(line) {
        Ok(Output::Value(v)) => v,
        other => panic!("{:?} for {:?}", other, line),
    }
}

#[test]
fn arithmetic_and_variables() {
    let mut c = Interpreter::new();
    assert_eq!(value(&mut c, "1 + 2 * 3"), 7);
    assert_eq!(value(&mut c, "let x = (1 + 2) * 3"), 9);
    assert_eq!(value(&mut c, "x = x - 10"), -1);
    assert_eq!(value(&mut c, "-x % 2 == 1"), 1);
    assert_eq!(value(&mut c, "max(abs(x), min(4, 2))"), 2);
    assert_eq!(c.var("x"), Some(-1));
}

#[test]
fn errors() {
    let mut c = Interpreter::new();
    assert_eq!(c.eval_line("1 / 0"), Err(CalcError::DivisionByZero));
    assert_eq!(c.eval_line("9223372036854775807 + 1"), Err(CalcError::Overflow));
    assert_eq!(c.eval_line("y + 1"), Err(CalcError::UnknownVariable("y".into())));
    assert_eq!(c.eval_line("nope(1)"), Err(CalcError::UnknownFunction("nope".into())));
    assert_eq!(c.eval_line("min(1)"), Err(CalcError::Arity { name: "min".into(), expected: 2, got: 1 }));
    assert!(matches!(c.eval_line("1 +"), Err(CalcError::Parse { pos: 3, .. })));
    assert!(matches!(c.eval_line("let z = 1 / 0"), Err(CalcError::DivisionByZero)));
    assert_eq!(c.var("z"), None);
}
