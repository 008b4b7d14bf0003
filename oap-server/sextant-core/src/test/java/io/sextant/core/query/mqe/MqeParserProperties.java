package io.sextant.core.query.mqe;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Fuzzing the MQE parser (jqwik): any text, random characters or strings of MQE's own tokens, is
 * parsed or refused with an {@link MqeException} (the user's error), never another exception or a
 * stack overflow. A longer run: {@code -Djqwik.tries.default=100000} (docs/reliability.md).
 */
class MqeParserProperties {
  @Property
  void anyTextIsParsedOrRefusedWithAReason(@ForAll("expressions") String expression) {
    try {
      Mqe.parse(expression);
    } catch (MqeException refused) {
      // a syntax or limit error with its position: what the user gets
    }
  }

  @Provide
  Arbitrary<String> expressions() {
    Arbitrary<String> token = Arbitraries.of("service_cpm", "service_sla", "{", "}", "(", ")", ",", "'", "\"",
        "+", "-", "*", "/", "%", ">", ">=", "==", "!=", "<", "bool", "=", "p", "'50,99'", "1", "0.5", "-3",
        "avg", "sum", "top_n", "sort_values", "relabels", "aggregate_labels", "latest", "abs", "round", "des", "asc",
        "rate", "increase", "baseline", "&&", "||", " ", "\n", "\\", "name", "10", "attr0='MESH'");
    Arbitrary<String> tokens = token.list().ofMaxSize(60).map(l -> String.join("", l));
    Arbitrary<String> chars = Arbitraries.strings().withChars("abc_(){},'\"+-*/%<>=!. 0123456789\\\n\u00e9")
        .ofMaxLength(120);
    return Arbitraries.oneOf(tokens, chars, Arbitraries.strings().ofMaxLength(200));
  }
}
