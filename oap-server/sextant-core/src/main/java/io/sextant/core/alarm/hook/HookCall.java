package io.sextant.core.alarm.hook;

import java.net.URI;
import java.util.Map;

/** One HTTP POST a hook makes: where, the JSON body and any headers. */
public record HookCall(URI uri, String body, Map<String, String> headers) {
  public HookCall {
    headers = Map.copyOf(headers);
  }
}
