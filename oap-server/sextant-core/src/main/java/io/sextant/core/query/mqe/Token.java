package io.sextant.core.query.mqe;

/** A lexical token; {@code pos} is the 0-based character offset in the expression, used in error messages. */
record Token(Kind kind, String text, int pos) {
  enum Kind { NUMBER, IDENT, STRING, OP, EOF }

  boolean is(String op) {
    return kind == Kind.OP && text.equals(op);
  }

  /** How the token is quoted in an error message. */
  String describe() {
    return switch (kind) {
      case EOF -> "end of input";
      case STRING -> "string '" + text + "'";
      default -> "'" + text + "'";
    };
  }
}
