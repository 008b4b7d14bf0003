package io.sextant.core.query.mqe;

/**
 * Binary operators. Comparisons, and the bool operators over them, yield 1 or 0 (with or without
 * SkyWalking's {@code bool} modifier, which 10.1 accepts and ignores); any null operand, or a zero
 * divisor, yields null (no data).
 */
enum Operator {
  ADD("+"), SUB("-"), MUL("*"), DIV("/"), MOD("%"),
  GT(">"), GE(">="), LT("<"), LE("<="), EQ("=="), NE("!="),
  // 10.2's bool operators, on comparison results only (1 or 0).
  AND("&&"), OR("||");

  final String symbol;

  Operator(String symbol) {
    this.symbol = symbol;
  }

  boolean isComparison() {
    return ordinal() >= GT.ordinal() && ordinal() <= NE.ordinal();
  }

  boolean isBool() {
    return this == AND || this == OR;
  }

  static Operator of(String symbol) {
    for (Operator op : values()) {
      if (op.symbol.equals(symbol)) {
        return op;
      }
    }
    return null;
  }

  Double apply(Double a, Double b) {
    if (a == null || b == null) {
      return null;
    }
    double x = a;
    double y = b;
    return switch (this) {
      case ADD -> x + y;
      case SUB -> x - y;
      case MUL -> x * y;
      // A missing or zero denominator is "no data" for a dashboard, never an error or Infinity.
      case DIV -> y == 0 ? null : x / y;
      case MOD -> y == 0 ? null : x % y;
      case GT -> bool(x > y);
      case GE -> bool(x >= y);
      case LT -> bool(x < y);
      case LE -> bool(x <= y);
      case EQ -> bool(x == y);
      case NE -> bool(x != y);
      case AND -> bool(x == 1 && y == 1);
      case OR -> bool(x == 1 || y == 1);
    };
  }

  private static Double bool(boolean b) {
    return b ? 1.0 : 0.0;
  }
}
