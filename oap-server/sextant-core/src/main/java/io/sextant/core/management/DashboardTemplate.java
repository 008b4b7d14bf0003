package io.sextant.core.management;

/**
 * A UI template as the query protocol answers it: its id and the booster-ui dashboard configuration
 * (a JSON object, as text). A disabled template is hidden from every read.
 */
public record DashboardTemplate(String id, String configuration, boolean disabled) {}
