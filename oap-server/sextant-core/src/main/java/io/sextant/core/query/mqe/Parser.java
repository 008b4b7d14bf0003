package io.sextant.core.query.mqe;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Recursive-descent parser. Grammar, lowest precedence first (all binary levels are left-associative):
 *
 * <pre>
 * comparison     := additive (("==" | "!=" | ">" | ">=" | "<" | "<=") additive)*
 * additive       := multiplicative (("+" | "-") multiplicative)*
 * multiplicative := unary (("*" | "/" | "%") unary)*
 * unary          := ("-" | "+") unary | primary
 * primary        := NUMBER | "(" comparison ")" | IDENT "(" args ")" | IDENT selector?
 * selector       := "{" [IDENT "=" STRING ("," IDENT "=" STRING)*] "}"
 * args           := [arg ("," arg)*]          arg := IDENT "=" STRING | comparison
 * </pre>
 *
 * Function arguments are parsed generically and then checked per function, so arity and argument errors are reported
 * at parse time, with the function's name.
 */
final class Parser {
  /** Guards the recursion: a pathological "((((..." must give an error, not a StackOverflowError. */
  private static final int MAX_DEPTH = 200;

  private final String src;
  private final List<Token> tokens;
  private int index;
  private int depth;

  private Parser(String src) {
    this.src = src;
    this.tokens = Lexer.tokenize(src);
  }

  static Expression parse(String src) {
    if (src == null || src.isBlank()) {
      throw MqeException.syntax(0, "empty expression");
    }
    Parser parser = new Parser(src);
    Expression expression = parser.comparison();
    Token rest = parser.peek();
    if (rest.kind() != Token.Kind.EOF) {
      throw MqeException.syntax(rest.pos(), "unexpected " + rest.describe());
    }
    return expression;
  }

  /** For errors that are not about the syntax itself (unknown function, bad arguments). */
  private static MqeException error(int pos, String reason) {
    return new MqeException(reason + " (at position " + pos + ")");
  }

  // ---- precedence levels ----

  private Expression comparison() {
    if (++depth > MAX_DEPTH) {
      throw MqeException.syntax(peek().pos(), "expression nested too deeply");
    }
    Expression left = additive();
    while (peekOperator("==", "!=", ">", ">=", "<", "<=")) {
      Operator op = Operator.of(advance().text());
      left = new Nodes.Binary(op, left, additive());
    }
    depth--;
    return left;
  }

  private Expression additive() {
    Expression left = multiplicative();
    while (peekOperator("+", "-")) {
      Operator op = Operator.of(advance().text());
      left = new Nodes.Binary(op, left, multiplicative());
    }
    return left;
  }

  private Expression multiplicative() {
    Expression left = unary();
    while (peekOperator("*", "/", "%")) {
      Operator op = Operator.of(advance().text());
      left = new Nodes.Binary(op, left, unary());
    }
    return left;
  }

  private Expression unary() {
    if (peekOperator("-", "+")) {
      boolean minus = advance().text().equals("-");
      if (++depth > MAX_DEPTH) {
        throw MqeException.syntax(peek().pos(), "expression nested too deeply");
      }
      Expression operand = unary();
      depth--;
      return minus ? new Nodes.Negate(operand) : operand;
    }
    return primary();
  }

  private Expression primary() {
    Token t = peek();
    if (t.kind() == Token.Kind.NUMBER) {
      advance();
      return new Nodes.NumberLiteral(Double.parseDouble(t.text()));
    }
    if (t.kind() == Token.Kind.IDENT) {
      advance();
      if (peek().is("(")) {
        return call(t);
      }
      Map<String, String> selector = peek().is("{") ? selector() : Map.of();
      return new Nodes.MetricRef(t.text(), selector);
    }
    if (t.is("(")) {
      advance();
      Expression inner = comparison();
      expect(")");
      return inner;
    }
    throw MqeException.syntax(t.pos(), "expected a metric, number, function or '(' but found " + t.describe());
  }

  /** {@code {k='v1,v2', k2="v"}}: values are kept as written (comma lists included) for the SeriesSource. */
  private Map<String, String> selector() {
    expect("{");
    Map<String, String> labels = new LinkedHashMap<>();
    if (!peek().is("}")) {
      do {
        Token key = peek();
        LabelArg label = labelArg();
        if (labels.put(label.key(), label.value()) != null) {
          throw MqeException.syntax(key.pos(), "duplicate label '" + label.key() + "'");
        }
      } while (accept(","));
    }
    expect("}");
    return labels;
  }

  private LabelArg labelArg() {
    Token key = peek();
    if (key.kind() != Token.Kind.IDENT) {
      throw MqeException.syntax(key.pos(), "expected a label name but found " + key.describe());
    }
    advance();
    expect("=");
    Token value = peek();
    if (value.kind() != Token.Kind.STRING) {
      throw MqeException.syntax(value.pos(), "expected a quoted label value but found " + value.describe());
    }
    advance();
    return new LabelArg(key.text(), value.text());
  }

  // ---- function calls ----

  /** One parsed function argument: either a label ({@code k='v'}) or an expression; text is what the user wrote. */
  private record Arg(int pos, String text, LabelArg label, Expression expression) {
  }

  private record LabelArg(String key, String value) {
  }

  private Expression call(Token name) {
    expect("(");
    List<Arg> args = new ArrayList<>();
    if (!peek().is(")")) {
      do {
        args.add(arg());
      } while (accept(","));
    }
    expect(")");

    String fn = name.text();
    Aggregation aggregation = Aggregation.byName(fn);
    if (aggregation != null) {
      return aggregate(name, aggregation, args);
    }
    return switch (fn) {
      case "relabels" -> relabels(name, args);
      case "top_n" -> topN(name, args);
      default -> throw error(name.pos(), "unknown function '" + fn + "'");
    };
  }

  private Arg arg() {
    Token start = peek();
    // "name =" (a single '=') can only start a label argument: '=' is not an operator.
    if (start.kind() == Token.Kind.IDENT && peek(1).is("=")) {
      LabelArg label = labelArg();
      return new Arg(start.pos(), textSince(start), label, null);
    }
    Expression expression = comparison();
    return new Arg(start.pos(), textSince(start), null, expression);
  }

  /** The source text from {@code start} up to the current token, for quoting an argument in an error. */
  private String textSince(Token start) {
    return src.substring(start.pos(), peek().pos()).trim();
  }

  private Expression aggregate(Token name, Aggregation aggregation, List<Arg> args) {
    if (args.size() != 1) {
      throw error(name.pos(), "function '" + name.text() + "' takes 1 argument, got " + args.size());
    }
    return new Nodes.Aggregate(aggregation, expressionArg(name, args.get(0)));
  }

  /** relabels(expr, label='a,b', newLabel='x,y' [, label2='..', newLabel2='..' ...]). */
  private Expression relabels(Token name, List<Arg> args) {
    if (args.size() < 3 || args.size() % 2 == 0) {
      throw error(name.pos(), "function 'relabels' takes an expression followed by pairs of label arguments, "
          + "e.g. relabels(expr, p='50,75', percentile='P50,P75'), got " + args.size() + " argument(s)");
    }
    Expression operand = expressionArg(name, args.get(0));
    List<Nodes.RelabelRule> rules = new ArrayList<>();
    for (int i = 1; i < args.size(); i += 2) {
      LabelArg from = labelArgOf(name, args.get(i));
      LabelArg to = labelArgOf(name, args.get(i + 1));
      List<String> fromValues = splitValues(from.value());
      List<String> toValues = splitValues(to.value());
      if (fromValues.size() != toValues.size()) {
        throw error(args.get(i).pos(), "function 'relabels': label '" + from.key() + "' lists " + fromValues.size()
            + " value(s) but '" + to.key() + "' lists " + toValues.size());
      }
      rules.add(new Nodes.RelabelRule(from.key(), fromValues, to.key(), toValues));
    }
    return new Nodes.Relabel(operand, rules);
  }

  /** top_n(metric, n, des|asc [, attr0='x', ...]). */
  private Expression topN(Token name, List<Arg> args) {
    if (args.size() < 3) {
      throw error(name.pos(), "function 'top_n' takes at least 3 arguments: "
          + "top_n(metric, n, des|asc [, attr='v' ...]), got " + args.size());
    }
    Arg metricArg = args.get(0);
    if (!(metricArg.expression() instanceof Nodes.MetricRef metric) || !metric.labels().isEmpty()) {
      throw error(metricArg.pos(), "function 'top_n' expects a metric name as its first argument, got '"
          + metricArg.text() + "'");
    }
    Arg countArg = args.get(1);
    if (!(countArg.expression() instanceof Nodes.NumberLiteral count)
        || count.value() < 1 || count.value() > Integer.MAX_VALUE || count.value() != Math.rint(count.value())) {
      throw error(countArg.pos(), "function 'top_n' expects a positive integer as its second argument, got '"
          + countArg.text() + "'");
    }
    Arg orderArg = args.get(2);
    String order = orderArg.expression() instanceof Nodes.MetricRef ref && ref.labels().isEmpty()
        ? ref.name().toLowerCase(Locale.ROOT) : "";
    if (!order.equals("asc") && !order.equals("des")) {
      throw error(orderArg.pos(), "function 'top_n' expects order 'des' or 'asc' as its third argument, got '"
          + orderArg.text() + "'");
    }
    Map<String, String> attributes = new LinkedHashMap<>();
    for (Arg a : args.subList(3, args.size())) {
      LabelArg attr = labelArgOf(name, a);
      if (attributes.put(attr.key(), attr.value()) != null) {
        throw error(a.pos(), "function 'top_n': duplicate attribute '" + attr.key() + "'");
      }
    }
    return new Nodes.TopN(metric.name(), (int) count.value(), order.equals("asc"), attributes);
  }

  private static Expression expressionArg(Token fn, Arg arg) {
    if (arg.expression() == null) {
      throw error(arg.pos(), "function '" + fn.text() + "' expects an expression, not the label argument '"
          + arg.text() + "'");
    }
    return arg.expression();
  }

  private static LabelArg labelArgOf(Token fn, Arg arg) {
    if (arg.label() == null) {
      throw error(arg.pos(), "function '" + fn.text() + "' expects a label argument like name='value', got '"
          + arg.text() + "'");
    }
    return arg.label();
  }

  private static List<String> splitValues(String csv) {
    return Arrays.stream(csv.split(",", -1)).map(String::trim).toList();
  }

  // ---- token helpers ----

  private Token peek() {
    return tokens.get(index);
  }

  private Token peek(int ahead) {
    return tokens.get(Math.min(index + ahead, tokens.size() - 1));
  }

  private Token advance() {
    Token t = tokens.get(index);
    if (t.kind() != Token.Kind.EOF) {
      index++;
    }
    return t;
  }

  private boolean peekOperator(String... ops) {
    for (String op : ops) {
      if (peek().is(op)) {
        return true;
      }
    }
    return false;
  }

  private boolean accept(String op) {
    if (peek().is(op)) {
      advance();
      return true;
    }
    return false;
  }

  private void expect(String op) {
    Token t = peek();
    if (!t.is(op)) {
      throw MqeException.syntax(t.pos(), "expected '" + op + "' but found " + t.describe());
    }
    advance();
  }
}
