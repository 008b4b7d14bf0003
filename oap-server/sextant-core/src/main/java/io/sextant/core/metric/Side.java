package io.sextant.core.metric;

import io.sextant.api.model.DetectPoint;

/** Filter on the reporting side of a record (SkyWalking's {@code filter(detectPoint == ...)}). */
public enum Side {
  ANY,
  CLIENT,
  SERVER;

  public boolean matches(DetectPoint detectPoint) {
    return switch (this) {
      case ANY -> true;
      case CLIENT -> detectPoint == DetectPoint.CLIENT;
      case SERVER -> detectPoint == DetectPoint.SERVER;
    };
  }
}
