package io.sextant.core.alarm;

import io.sextant.api.event.Event;
import java.util.regex.Pattern;

/**
 * An event rule's condition (Sextant's addition to SkyWalking's rule keys, {@code events:}): the
 * events of a service that count, and how many within the rule's period break it. {@code type}
 * and {@code layer} match exactly when given (a Kubernetes event exporter reports a {@code Warning}
 * as SkyWalking's {@code Error}); the regexes match the whole name or message.
 */
public record EventCondition(String type, Pattern nameRegex, Pattern messageRegex, String layer, int threshold) {

  public boolean matches(Event e) {
    return (type == null || type.equals(e.type())) && (layer == null || layer.equals(e.layer()))
        && (nameRegex == null || nameRegex.matcher(e.name()).matches())
        && (messageRegex == null || messageRegex.matcher(e.message()).matches());
  }
}
