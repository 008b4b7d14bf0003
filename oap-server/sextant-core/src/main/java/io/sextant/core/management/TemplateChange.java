package io.sextant.core.management;

/**
 * The answer to adding, changing or disabling a template ({@code TemplateChangeStatus}): refusals are
 * answers with {@code status == false} and a message, as SkyWalking gives them, not errors.
 */
public record TemplateChange(String id, boolean status, String message) {
  static TemplateChange done(String id) {
    return new TemplateChange(id, true, null);
  }

  static TemplateChange refused(String id, String message) {
    return new TemplateChange(id, false, message);
  }
}
