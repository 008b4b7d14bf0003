package io.sextant.receiver.k8s;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Derives a service name from a pod, so that operators can match whatever labelling convention
 * their cluster uses without code changes.
 *
 * <p>Template syntax (parsed once, in {@link #parse}):
 *
 * <ul>
 *   <li>Literal text is copied as is. A {@code $} not followed by <code>{</code> is literal.
 *   <li><code>${a|b|c}</code> is replaced by the first alternative that has a non-empty value
 *       (or by nothing if none has). Alternatives:
 *       <ul>
 *         <li>{@code label:<key>} &mdash; the pod label {@code <key>};
 *         <li>{@code annotation:<key>} &mdash; the pod annotation {@code <key>};
 *         <li>{@code namespace} &mdash; the pod namespace;
 *         <li>{@code pod} &mdash; the pod name;
 *         <li>{@code owner} &mdash; the owning workload: a ReplicaSet owner {@code reviews-v1-7f78d020dc}
 *             gives the Deployment name {@code reviews-v1} (the trailing {@code -<pod-template-hash>}
 *             is stripped); any other owner kind (StatefulSet, DaemonSet, Job, ...) gives its own
 *             name; a pod without an owner gives the pod name. Always has a value.
 *       </ul>
 * </ul>
 *
 * <p>The default, {@link #DEFAULT_TEMPLATE}, mirrors Istio's canonical service naming:
 * {@code ${label:service.istio.io/canonical-name|label:app.kubernetes.io/name|label:app|owner}.${namespace}}.
 *
 * <p>Instances are immutable and thread-safe.
 */
public final class ServiceNameRule {
  public static final String DEFAULT_TEMPLATE =
      "${label:service.istio.io/canonical-name|label:app.kubernetes.io/name|label:app|owner}.${namespace}";

  private static final ServiceNameRule DEFAULT = parse(DEFAULT_TEMPLATE);

  private final String template;
  private final List<Part> parts;

  private ServiceNameRule(String template, List<Part> parts) {
    this.template = template;
    this.parts = parts;
  }

  /** The rule for {@link #DEFAULT_TEMPLATE}. */
  public static ServiceNameRule defaultRule() {
    return DEFAULT;
  }

  /**
   * Parses a template.
   *
   * @throws IllegalArgumentException if the template is null/blank, has an unclosed or empty
   *     <code>${</code>, an empty alternative, or an unknown source
   */
  public static ServiceNameRule parse(String template) {
    if (template == null || template.isBlank()) {
      throw bad(template, "must not be empty");
    }
    List<Part> parts = new ArrayList<>();
    StringBuilder literal = new StringBuilder();
    int i = 0;
    while (i < template.length()) {
      int open = template.indexOf("${", i);
      if (open < 0) {
        literal.append(template, i, template.length());
        break;
      }
      literal.append(template, i, open);
      int close = template.indexOf('}', open + 2);
      if (close < 0) {
        throw bad(template, "unclosed '${' at position " + open);
      }
      String body = template.substring(open + 2, close);
      if (body.contains("${")) {
        throw bad(template, "nested '${' at position " + (open + 2 + body.indexOf("${")));
      }
      if (literal.length() > 0) {
        parts.add(new Literal(literal.toString()));
        literal.setLength(0);
      }
      parts.add(parseExpression(template, body));
      i = close + 1;
    }
    if (literal.length() > 0) {
      parts.add(new Literal(literal.toString()));
    }
    return new ServiceNameRule(template, List.copyOf(parts));
  }

  /** The service name for {@code pod}; never null (may be empty if every expression is empty). */
  public String apply(Pod pod) {
    Objects.requireNonNull(pod, "pod");
    StringBuilder out = new StringBuilder();
    for (Part part : parts) {
      out.append(part.value(pod));
    }
    return out.toString();
  }

  public String template() {
    return template;
  }

  @Override
  public String toString() {
    return "ServiceNameRule[" + template + "]";
  }

  /**
   * The name of the workload owning {@code pod}: a ReplicaSet owner is mapped to its Deployment by
   * dropping the trailing {@code -<hash>}; other owners keep their name; no owner gives the pod name.
   */
  static String ownerName(Pod pod) {
    ObjectMeta meta = pod.getMetadata();
    List<OwnerReference> refs = meta.getOwnerReferences();
    if (refs == null || refs.isEmpty()) {
      return nullToEmpty(meta.getName());
    }
    OwnerReference owner =
        refs.stream().filter(r -> Boolean.TRUE.equals(r.getController())).findFirst().orElse(refs.get(0));
    String name = nullToEmpty(owner.getName());
    if (!"ReplicaSet".equals(owner.getKind())) {
      return name;
    }
    // Prefer the exact hash the Deployment controller put on the pod; else strip the last segment.
    String hash = meta.getLabels() == null ? null : meta.getLabels().get("pod-template-hash");
    if (hash != null && !hash.isEmpty() && name.endsWith("-" + hash)) {
      return name.substring(0, name.length() - hash.length() - 1);
    }
    int dash = name.lastIndexOf('-');
    return dash > 0 ? name.substring(0, dash) : name;
  }

  private static Expression parseExpression(String template, String body) {
    if (body.isBlank()) {
      throw bad(template, "empty '${}'");
    }
    List<Source> alternatives = new ArrayList<>();
    for (String raw : body.split("\\|", -1)) {
      String alt = raw.trim();
      if (alt.isEmpty()) {
        throw bad(template, "empty alternative in '${" + body + "}'");
      }
      alternatives.add(parseSource(template, alt));
    }
    return new Expression(List.copyOf(alternatives));
  }

  private static Source parseSource(String template, String alt) {
    int colon = alt.indexOf(':');
    String kind = (colon < 0 ? alt : alt.substring(0, colon)).trim();
    String key = colon < 0 ? null : alt.substring(colon + 1).trim();
    switch (kind) {
      case "label":
      case "annotation":
        if (key == null || key.isEmpty()) {
          throw bad(template, "'" + kind + "' needs a key, e.g. '" + kind + ":app'");
        }
        return new MetaSource(kind.equals("label"), key);
      case "namespace":
      case "pod":
      case "owner":
        if (key != null) {
          throw bad(template, "'" + kind + "' takes no key, got '" + alt + "'");
        }
        if (kind.equals("namespace")) {
          return pod -> pod.getMetadata().getNamespace();
        }
        return kind.equals("pod") ? pod -> pod.getMetadata().getName() : ServiceNameRule::ownerName;
      default:
        throw bad(
            template,
            "unknown source '" + alt + "' (expected label:<key>, annotation:<key>, namespace, owner or pod)");
    }
  }

  private static IllegalArgumentException bad(String template, String why) {
    return new IllegalArgumentException("invalid service name template '" + template + "': " + why);
  }

  private static String nullToEmpty(String s) {
    return s == null ? "" : s;
  }

  private interface Part {
    String value(Pod pod);
  }

  private interface Source {
    /** The value, or null/empty if absent. */
    String value(Pod pod);
  }

  private record Literal(String text) implements Part {
    @Override
    public String value(Pod pod) {
      return text;
    }
  }

  private record Expression(List<Source> alternatives) implements Part {
    @Override
    public String value(Pod pod) {
      for (Source source : alternatives) {
        String v = source.value(pod);
        if (v != null && !v.isEmpty()) {
          return v;
        }
      }
      return "";
    }
  }

  private record MetaSource(boolean label, String key) implements Source {
    @Override
    public String value(Pod pod) {
      Map<String, String> map =
          label ? pod.getMetadata().getLabels() : pod.getMetadata().getAnnotations();
      return map == null ? null : map.get(key);
    }
  }
}
