package io.sextant.core.query.mqe;

/** A lexical token; {@code pos} is the 0-based character offset in the expression, used in error messages. */
record Token(Kind kind, String text, int pos) {
  enum Kind { NUMBER, IDENT, STRING, OP, EOF }

  boolean is(String op) {
    return kind == Kind.OP && text.equals(op);
  }

  /** An identifier spelled {@code word}, ignoring case (SkyWalking's asc, des and bool keywords). */
  boolean isWord(String word) {
    return kind == Kind.IDENT && text.equalsIgnoreCase(word);
  }

  /** How the token is quoted in an error message, as ANTLR quotes it. */
  String describe() {
    return switch (kind) {
      case EOF -> "'<EOF>'";
      case STRING -> "''" + text + "''";
      default -> "'" + text + "'";
    };
  }
}
