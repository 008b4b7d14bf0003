package io.sextant.receiver.ebpf;

import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import io.sextant.testkit.fuzz.Damaged;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

/** What the Rover receivers' properties (jqwik) generate: Rover's names and messages as they come off the wire. */
public final class RoverArbitraries {
  private RoverArbitraries() {}

  /** Names and values: Rover's own, random text, and text of the lengths around the receivers' bounds. */
  public static Arbitrary<String> text() {
    Arbitrary<String> atBounds = Combinators.combine(Arbitraries.of("a", "é", "中"),
        Arbitraries.of(15, 16, 17, 256, 257, 1024, 1025, 4096, 4097)).as(String::repeat);
    return Arbitraries.frequencyOf(Tuple.of(4, Arbitraries.of("", "reviews", "reviews-1", "envoy", "MESH", "true",
        "client", "server", "http", "1")), Tuple.of(4, Arbitraries.strings().ofMaxLength(20)), Tuple.of(1, atBounds));
  }

  /**
   * Each message as a client's bytes make it: serialized and parsed again, or with up to 3 bytes changed
   * where protobuf-java still parses it (unknown enum values, cut strings, foreign fields).
   */
  public static <M extends MessageLite> Arbitrary<M> offTheWire(Arbitrary<M> built, Parser<M> parser) {
    return Damaged.messages(built, parser, 0, 3);
  }
}
