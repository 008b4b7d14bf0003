package io.sextant.server.assembly;

import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/** Compilers whose time and queue the tests decide. */
final class TestCompilers {
  private TestCompilers() {}

  static JitCompiler of(LongSupplier millis, IntSupplier optimizing) {
    return new JitCompiler() {
      @Override
      public long millis() {
        return millis.getAsLong();
      }

      @Override
      public int optimizing() {
        return optimizing.getAsInt();
      }
    };
  }
}
