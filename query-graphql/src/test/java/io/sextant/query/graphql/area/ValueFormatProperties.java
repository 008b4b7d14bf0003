package io.sextant.query.graphql.area;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.math.RoundingMode;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The text of an MQE value is the exact binary value rounded half up to 4 places, trailing zeros
 * dropped, integral values without decimals: what the BigDecimal formatting answered before the
 * long-arithmetic path, for every double, and above all the ones near a rounding half.
 */
class ValueFormatProperties {
  private static String reference(double v) {
    if (Double.isNaN(v) || Double.isInfinite(v)) {
      return null;
    }
    if (v == Math.rint(v) && Math.abs(v) < 1e15) {
      return Long.toString((long) v);
    }
    return new BigDecimal(v).setScale(4, RoundingMode.HALF_UP).stripTrailingZeros().toPlainString();
  }

  @Property(tries = 20_000)
  void anyDoubleFormatsAsTheExactValueRounded(@ForAll("values") double v) {
    assertThat(MetricsArea.format(v)).as("%s", v).isEqualTo(reference(v));
  }

  @Provide
  Arbitrary<Double> values() {
    Arbitrary<Double> halves = Arbitraries.longs().between(-20_000_000L, 20_000_000L)
        .map(k -> (k + 0.5) / 10_000); // the nearest double to a rounding half, on either side
    Arbitrary<Double> nextToHalves = halves.flatMap(h -> Arbitraries.of(Math.nextUp(h), Math.nextDown(h), h));
    return Arbitraries.oneOf(Arbitraries.doubles(), Arbitraries.doubles().between(-1e4, 1e4).ofScale(9),
        Arbitraries.doubles().between(-1e-3, 1e-3).ofScale(12), Arbitraries.doubles().between(-1e12, 1e12), halves,
        nextToHalves, Arbitraries.longs().map(Double::longBitsToDouble));
  }

  @Example
  void knownTexts() {
    assertThat(MetricsArea.format(2.00005)).isEqualTo("2"); // 2.0000499999... in binary
    assertThat(MetricsArea.format(1.00005)).isEqualTo("1.0001"); // 1.0000500000...1
    assertThat(MetricsArea.format(0.00005)).isEqualTo("0.0001"); // 0.0000500000000000000024...
    assertThat(MetricsArea.format(-0.00001)).isEqualTo("0");
    assertThat(MetricsArea.format(12.5)).isEqualTo("12.5");
    assertThat(MetricsArea.format(-3.01)).isEqualTo("-3.01");
    assertThat(MetricsArea.format(99.99999)).isEqualTo("100");
    assertThat(MetricsArea.format(7.0)).isEqualTo("7");
    assertThat(MetricsArea.format(Double.NaN)).isNull();
    assertThat(MetricsArea.format(null)).isNull();
    assertThat(MetricsArea.format(1e20 + 0.5)).isEqualTo(reference(1e20));
  }
}
