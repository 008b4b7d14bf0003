package io.sextant.testkit.fuzz;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.Tuple;

/**
 * Inputs for fuzz properties (jqwik), damaged as a wire, a proxy or a buggy client damages them:
 * valid bytes with bytes changed, cut or inserted, and protobuf messages with bytes changed where
 * protobuf-java still parses them (unknown enum values, cut strings, foreign fields).
 */
public final class Damaged {
  private static final int CHANGE = 0;
  private static final int CUT = 1;

  private Damaged() {}

  /** {@code valid} with 1 to {@code maxEdits} edits, mostly changed bytes (a cut spoils a buffer at once). */
  public static Arbitrary<byte[]> bytes(Arbitrary<byte[]> valid, int maxEdits) {
    Arbitrary<Integer> kind = Arbitraries.frequency(Tuple.of(6, CHANGE), Tuple.of(1, CUT), Tuple.of(1, 2));
    Arbitrary<List<int[]>> edits = Combinators.combine(kind, position(), Arbitraries.integers().between(-128, 127))
        .as((k, at, value) -> new int[] {k, at, value}).list().ofMinSize(1).ofMaxSize(maxEdits);
    return Combinators.combine(valid, edits).as(Damaged::edit);
  }

  /**
   * Messages as a client's bytes make them: {@code built} serialized, {@code minChanges} to {@code
   * maxChanges} bytes changed, and parsed again by {@code parser}; those it refuses are skipped.
   */
  public static <M extends MessageLite> Arbitrary<M> messages(Arbitrary<M> built, Parser<M> parser, int minChanges,
      int maxChanges) {
    Arbitrary<int[]> change = Combinators.combine(position(), Arbitraries.integers().between(-128, 127))
        .as((at, value) -> new int[] {CHANGE, at, value});
    return Combinators.combine(built, change.list().ofMinSize(minChanges).ofMaxSize(maxChanges))
        .as((message, changes) -> parsed(parser, edit(message.toByteArray(), changes)))
        .filter(Optional::isPresent).map(Optional::get).withoutEdgeCases();
  }

  private static Arbitrary<Integer> position() {
    return Arbitraries.integers().between(0, 1 << 20).withDistribution(RandomDistribution.uniform());
  }

  private static <M> Optional<M> parsed(Parser<M> parser, byte[] bytes) {
    try {
      return Optional.of(parser.parseFrom(bytes));
    } catch (InvalidProtocolBufferException e) {
      return Optional.empty();
    }
  }

  /** Each edit changes a byte, cuts the buffer or inserts a byte, at its position modulo the length. */
  private static byte[] edit(byte[] buffer, List<int[]> edits) {
    byte[] out = buffer;
    for (int[] e : edits) {
      int at = out.length == 0 ? 0 : e[1] % out.length;
      if (e[0] == CHANGE) {
        if (out.length > 0) {
          out = out.clone();
          out[at] = (byte) e[2];
        }
      } else if (e[0] == CUT) {
        out = Arrays.copyOf(out, at);
      } else {
        byte[] grown = new byte[out.length + 1];
        System.arraycopy(out, 0, grown, 0, at);
        grown[at] = (byte) e[2];
        System.arraycopy(out, at, grown, at + 1, out.length - at);
        out = grown;
      }
    }
    return out;
  }
}
