package io.sextant.core.profiling;

import io.sextant.api.ebpf.ProfilingTask;
import java.text.NumberFormat;
import java.util.Locale;

/** Renders a continuous-profiling cause as SkyWalking's {@code ContinuousProfilingServiceHandler} does. */
final class Causes {
  private Causes() {}

  static TaskView.CauseView view(ProfilingTask.Cause c) {
    boolean uri = c.type().startsWith("HTTP_") || !c.uriRegex().isEmpty() || !c.uriPath().isEmpty();
    String message = c.type() + ": " + summary(c.type(), c.threshold(), c.current());
    if (uri) {
      String on = !c.uriPath().isEmpty() ? c.uriPath() : c.uriRegex();
      if (!on.isEmpty()) {
        message += " on " + on;
      }
    }
    return new TaskView.CauseView(c.type(), uri, (long) (c.threshold() * 100), (long) (c.current() * 100),
        uri && !c.uriRegex().isEmpty() ? c.uriRegex() : null, uri && !c.uriPath().isEmpty() ? c.uriPath() : null,
        message);
  }

  private static String summary(String type, double threshold, double current) {
    return switch (type) {
      case "HTTP_ERROR_RATE", "PROCESS_CPU" -> {
        NumberFormat percent = NumberFormat.getPercentInstance(Locale.US);
        percent.setMinimumFractionDigits(2);
        yield "current " + percent.format(current / 100) + " >= threshold " + percent.format(threshold / 100);
      }
      case "PROCESS_THREAD_COUNT", "SYSTEM_LOAD" -> "current " + (int) current + " >= threshold " + (int) threshold;
      case "HTTP_AVG_RESPONSE_TIME" -> String.format(Locale.ROOT, "current %.2fms >= threshold %.2fms", current,
          threshold);
      default -> "";
    };
  }
}
