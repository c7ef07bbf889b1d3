use intcalc::{CalcError, Interpreter, Output};

#[test]
fn define_and_call() {
    let mut c = Interpreter::new();
    assert_eq!(c.eval_line("fn area(w, h) = w * h"), Ok(Output::Defined("area(w, h)".into())));
    assert_eq!(c.eval_line("area(3, 4)"), Ok(Output::Value(12)));
    assert_eq!(c.eval_line("fn fact(n) = if(n <= 1, 1, n * fact(n - 1))"), Ok(Output::Defined("fact(n)".into())));
    assert_eq!(c.eval_line("fact(10)"), Ok(Output::Value(3628800)));
    assert_eq!(c.eval_line("fn min(a, b) = a"), Err(CalcError::Reserved("min".into())));
    assert_eq!(c.functions(), vec!["area(w, h)".to_string(), "fact(n)".to_string()]);
}
