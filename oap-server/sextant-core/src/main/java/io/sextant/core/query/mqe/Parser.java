package io.sextant.core.query.mqe;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Recursive-descent parser for SkyWalking 10.1's MQE grammar (MQEParser.g4), lowest precedence first; all binary
 * levels are left-associative:
 *
 * <pre>
 * expression     := comparison (("&&" | "||") comparison)*   (10.2; each side a comparison or bool result)
 * comparison     := additive (("==" | "!=" | ">" | ">=" | "<" | "<=") ["bool"] additive)*
 * additive       := multiplicative (("+" | "-") multiplicative)*
 * multiplicative := unary (("*" | "/" | "%") unary)*
 * unary          := ("-" | "+") unary | primary          (a Sextant extension: 10.1 has no unary sign)
 * primary        := NUMBER | "(" expression ")" | function | metric
 * metric         := IDENT ["{" [label ("," label)*] "}"]      label := IDENT "=" STRING
 * </pre>
 *
 * Each function has its own argument shape (see {@link #call}), so a misplaced argument is reported where it is, in
 * the form of SkyWalking's ANTLR errors: {@code line 1:<column> <reason>}.
 */
final class Parser {
  /** Guards the recursion: a pathological "((((..." must give an error, not a StackOverflowError. */
  private static final int MAX_DEPTH = 200;
  private static final String OPERAND = "a metric, number, function or '('";
  /**
   * Metrics one expression may name: each is a storage read, and a flat chain ({@code a+a+a+...})
   * passes the nesting guard. SkyWalking's dashboards name at most a handful.
   */
  static final int MAX_METRICS = 32;
  /** Operands one expression may have: a flat chain of numbers is a tree as deep as it is long. */
  static final int MAX_OPERANDS = 256;

  private final String src;
  private final List<Token> tokens;
  private int index;
  private int depth;
  private int metrics;
  private int operands;

  private Parser(String src) {
    this.src = src;
    this.tokens = Lexer.tokenize(src);
  }

  static Expression parse(String src) {
    Parser parser = new Parser(src == null ? "" : src);
    Expression expression = parser.expression();
    Token rest = parser.peek();
    if (rest.kind() != Token.Kind.EOF) {
      throw parser.error(rest, "extraneous input " + rest.describe() + " expecting <EOF>");
    }
    return expression;
  }

  private MqeException error(Token at, String reason) {
    return MqeException.syntax(src, at.pos(), reason);
  }

  private MqeException mismatched(String expecting) {
    return error(peek(), "mismatched input " + peek().describe() + " expecting " + expecting);
  }

  // ---- precedence levels ----

  private Expression expression() {
    enter();
    Token first = peek();
    Expression left = comparison();
    while (peekOperator("&&", "||")) {
      Token op = advance();
      requireBool(left, first, "left");
      Token second = peek();
      Expression right = comparison();
      requireBool(right, second, "right");
      left = new Nodes.Binary(Operator.of(op.text()), left, right);
    }
    depth--;
    return left;
  }

  /** SkyWalking's rule: both sides of a bool operator are compare (or bool) results. */
  private void requireBool(Expression e, Token at, String side) {
    if (!(e instanceof Nodes.Binary b) || !(b.op().isComparison() || b.op().isBool())) {
      throw error(at, "Bool Operation: The result of the " + side + " expression is not a compare result.");
    }
  }

  private Expression comparison() {
    enter();
    Expression left = additive();
    while (peekOperator("==", "!=", ">", ">=", "<", "<=")) {
      Operator op = Operator.of(advance().text());
      if (peek().isWord("bool")) {
        advance(); // 10.1 accepts the modifier; comparisons give 1 or 0 either way
      }
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
      enter();
      Expression operand = unary();
      depth--;
      return minus ? new Nodes.Negate(operand) : operand;
    }
    return primary();
  }

  private void enter() {
    if (++depth > MAX_DEPTH) {
      throw error(peek(), "expression nested too deeply");
    }
  }

  private Expression primary() {
    Token t = peek();
    if (++operands > MAX_OPERANDS) {
      throw error(t, "expression has more than " + MAX_OPERANDS + " operands");
    }
    if (t.kind() == Token.Kind.NUMBER) {
      advance();
      return new Nodes.NumberLiteral(Double.parseDouble(t.text()));
    }
    if (t.kind() == Token.Kind.IDENT) {
      return peek(1).is("(") ? call() : metric();
    }
    if (t.is("(")) {
      advance();
      Expression inner = expression();
      expect(")");
      return inner;
    }
    throw mismatched(OPERAND);
  }

  private Nodes.MetricRef metric() {
    Token name = peek();
    if (name.kind() != Token.Kind.IDENT || peek(1).is("(")) {
      throw mismatched("a metric name");
    }
    if (++metrics > MAX_METRICS) {
      throw error(name, "expression reads more than " + MAX_METRICS + " metrics (each is a storage read)");
    }
    advance();
    Map<String, String> labels = new LinkedHashMap<>();
    if (accept("{")) {
      if (!peek().is("}")) {
        do {
          Token key = peek();
          String[] label = label();
          if (labels.put(label[0], label[1]) != null) {
            throw error(key, "duplicate label '" + label[0] + "'");
          }
        } while (accept(","));
      }
      expect("}");
    }
    return new Nodes.MetricRef(name.text(), labels);
  }

  /** {@code name='value'} (or "value"); the value is kept as written, comma lists included. */
  private String[] label() {
    String key = labelName();
    expect("=");
    Token value = peek();
    if (value.kind() != Token.Kind.STRING) {
      throw mismatched("a quoted label value");
    }
    advance();
    return new String[] {key, value.text()};
  }

  private String labelName() {
    Token key = peek();
    if (key.kind() != Token.Kind.IDENT) {
      throw mismatched("a label name");
    }
    advance();
    return key.text();
  }

  // ---- functions ----

  private Expression call() {
    Token name = advance();
    expect("(");
    String fn = name.text();
    Aggregation aggregation = Aggregation.byName(fn);
    Expression call;
    if (aggregation != null) {
      call = new Nodes.Aggregate(aggregation, expression());
    } else {
      call = switch (fn) {
        case "abs" -> new Nodes.Mathematical(Nodes.MathFunction.ABS, expression(), 0);
        case "ceil" -> new Nodes.Mathematical(Nodes.MathFunction.CEIL, expression(), 0);
        case "floor" -> new Nodes.Mathematical(Nodes.MathFunction.FLOOR, expression(), 0);
        case "round" -> round();
        case "increase" -> trend(Nodes.TrendFunction.INCREASE);
        case "rate" -> trend(Nodes.TrendFunction.RATE);
        case "top_n" -> topN();
        case "top_n_of" -> topNOf();
        case "baseline" -> baseline();
        case "view_as_seq" -> logical(Nodes.LogicalFunction.VIEW_AS_SEQ);
        case "is_present" -> logical(Nodes.LogicalFunction.IS_PRESENT);
        case "relabels" -> relabels();
        case "aggregate_labels" -> aggregateLabels();
        case "sort_values" -> sortValues();
        case "sort_label_values" -> sortLabelValues();
        default -> throw error(name, "unknown function '" + fn + "'");
      };
    }
    expect(")");
    return call;
  }

  private Expression round() {
    Expression operand = expression();
    expect(",");
    return new Nodes.Mathematical(Nodes.MathFunction.ROUND, operand, integer());
  }

  private Expression trend(Nodes.TrendFunction function) {
    Nodes.MetricRef metric = metric();
    expect(",");
    return new Nodes.Trend(function, metric, integer());
  }

  /** top_n(metric, n, order [, attrN='v' | attrN!='v' ...]): the attributes arrived in 10.2, Sextant takes them. */
  private Nodes.TopN topN() {
    Nodes.MetricRef metric = metric();
    expect(",");
    int n = integer();
    expect(",");
    boolean ascending = order();
    List<AttributeFilter> attributes = new ArrayList<>();
    while (accept(",")) {
      Token at = peek();
      String attribute = labelName();
      if (!attribute.matches("attr[0-5]")) {
        throw error(at, "mismatched input '" + attribute + "' expecting an attribute attr0..attr5");
      }
      boolean equal;
      if (accept("=")) {
        equal = true;
      } else if (accept("!=")) {
        equal = false;
      } else {
        throw mismatched("'=' or '!='");
      }
      Token value = peek();
      if (value.kind() != Token.Kind.STRING) {
        throw mismatched("a quoted attribute value");
      }
      advance();
      attributes.add(new AttributeFilter(attribute, equal, value.text()));
    }
    return new Nodes.TopN(metric, n, ascending, attributes);
  }

  /** top_n_of(top_n(...), top_n(...), ..., n, order): 10.2's merge of several rankings. */
  private Expression topNOf() {
    List<Nodes.TopN> rankings = new ArrayList<>();
    do {
      Token at = peek();
      if (!at.isWord("top_n") || !peek(1).is("(")) {
        if (rankings.isEmpty()) {
          throw mismatched("'top_n'");
        }
        break;
      }
      advance();
      expect("(");
      rankings.add(topN());
      expect(")");
    } while (accept(","));
    int n = integer();
    expect(",");
    return new Nodes.TopNOf(rankings, n, order());
  }

  /** baseline(metric, value|upper|lower): 10.2's predicted values (docs/mqe.md says what Sextant predicts). */
  private Expression baseline() {
    Nodes.MetricRef metric = metric();
    expect(",");
    Token type = peek();
    Nodes.BaselineType kind = null;
    for (Nodes.BaselineType k : Nodes.BaselineType.values()) {
      if (type.isWord(k.name())) {
        kind = k;
      }
    }
    if (kind == null) {
      throw mismatched("{'value', 'upper', 'lower'}");
    }
    advance();
    return new Nodes.Baseline(metric, kind);
  }

  /** The 10.1 grammar lists the expressions bare; Sextant also takes them in brackets, as the docs write them. */
  private Expression logical(Nodes.LogicalFunction function) {
    boolean bracketed = accept("[");
    List<Expression> operands = new ArrayList<>();
    do {
      operands.add(expression());
    } while (accept(","));
    if (bracketed) {
      expect("]");
    }
    return new Nodes.Logical(function, operands);
  }

  /** relabels(expr, label='a,b', newLabel='x,y'); Sextant also takes more pairs after the first. */
  private Expression relabels() {
    int start = index;
    Expression operand = expression();
    String operandText = compactText(start, index);
    List<Nodes.RelabelRule> rules = new ArrayList<>();
    do {
      expect(",");
      String[] from = label();
      expect(",");
      String[] to = label();
      rules.add(new Nodes.RelabelRule(from[0], splitValues(from[1]), to[0], splitValues(to[1])));
    } while (peek().is(","));
    return new Nodes.Relabel(operand, rules, operandText);
  }

  private Expression aggregateLabels() {
    int start = index;
    Expression operand = expression();
    String operandText = compactText(start, index);
    expect(",");
    Token fn = peek();
    Aggregation function = fn.kind() == Token.Kind.IDENT ? Aggregation.byName(fn.text()) : null;
    if (function == null || function == Aggregation.COUNT || function == Aggregation.LATEST) {
      throw mismatched("{'avg', 'sum', 'max', 'min'}");
    }
    advance();
    List<String> labels = new ArrayList<>();
    if (accept("(")) {
      labels = labelNames();
      expect(")");
    }
    return new Nodes.AggregateLabels(function, labels, operand, operandText);
  }

  /**
   * sort_values(expr, [limit,] order) sorts each series' values (10.1); with a fourth argument,
   * sort_values(expr, limit, order, aggregation), it sorts the series by their aggregated value (10.3).
   */
  private Expression sortValues() {
    Expression operand = expression();
    expect(",");
    Integer limit = null;
    if (peek().kind() == Token.Kind.NUMBER) {
      limit = integer();
      expect(",");
    }
    boolean ascending = order();
    Aggregation bySeries = null;
    if (limit != null && accept(",")) {
      Token fn = peek();
      bySeries = fn.kind() == Token.Kind.IDENT ? Aggregation.byName(fn.text()) : null;
      if (bySeries == null) {
        throw mismatched("{'avg', 'count', 'latest', 'sum', 'max', 'min'}");
      }
      advance();
    }
    return new Nodes.SortValues(operand, limit, ascending, bySeries);
  }

  private Expression sortLabelValues() {
    Expression operand = expression();
    expect(",");
    boolean ascending = order();
    expect(",");
    return new Nodes.SortLabelValues(operand, ascending, labelNames());
  }

  private List<String> labelNames() {
    List<String> names = new ArrayList<>();
    do {
      names.add(labelName());
    } while (accept(","));
    return names;
  }

  /** SkyWalking's INTEGER: digits only, here also bounded by int. */
  private int integer() {
    Token t = peek();
    if (t.kind() != Token.Kind.NUMBER || !t.text().chars().allMatch(Character::isDigit) || t.text().length() > 9) {
      throw mismatched("INTEGER");
    }
    advance();
    return Integer.parseInt(t.text());
  }

  /** asc or des, any case; true for asc. */
  private boolean order() {
    Token t = peek();
    if (!t.isWord("asc") && !t.isWord("des")) {
      throw mismatched("{'asc', 'des'}");
    }
    advance();
    return t.isWord("asc");
  }

  /** Tokens [from, to) concatenated without blanks, as ANTLR's getText() quotes an argument in an error. */
  private String compactText(int from, int to) {
    StringBuilder out = new StringBuilder();
    for (Token t : tokens.subList(from, to)) {
      out.append(t.kind() == Token.Kind.STRING ? src.substring(t.pos(), t.pos() + t.text().length() + 2) : t.text());
    }
    return out.toString();
  }

  /** 'a, b' lists a and b; a blank value lists nothing (the rule is then skipped, as in SkyWalking). */
  private static List<String> splitValues(String csv) {
    if (csv.isBlank()) {
      return List.of();
    }
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
    if (!peek().is(op)) {
      throw mismatched("'" + op + "'");
    }
    advance();
  }
}
