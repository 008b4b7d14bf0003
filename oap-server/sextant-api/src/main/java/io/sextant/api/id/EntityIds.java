package io.sextant.api.id;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * Entity ids encoded exactly as SkyWalking encodes them, because clients (swctl, the UI) compute
 * ids themselves and pass them back to us.
 */
public final class EntityIds {
  private static final Base64.Encoder ENCODER = Base64.getEncoder();
  private static final Base64.Decoder DECODER = Base64.getDecoder();

  private static final char LABEL_SEPARATOR = '|';

  private EntityIds() {}

  /** {@code base64(name) + "." + (normal ? 1 : 0)}. */
  public static String serviceId(String serviceName, boolean normal) {
    return encode(serviceName) + (normal ? ".1" : ".0");
  }

  /** {@code serviceId + "_" + base64(instanceName)}. */
  public static String instanceId(String serviceId, String instanceName) {
    return serviceId + "_" + encode(instanceName);
  }

  /** {@code serviceId + "_" + base64(endpointName)}. */
  public static String endpointId(String serviceId, String endpointName) {
    return serviceId + "_" + encode(endpointName);
  }

  /** {@code sourceId + "-" + destId}. */
  public static String relationId(String sourceId, String destId) {
    return sourceId + "-" + destId;
  }

  /**
   * {@code entityId + "|" + label}: one label value of a metric labelled from the data (e.g. an
   * instance's upstream cluster), stored as an entity of its own.
   */
  public static String labelled(String entityId, String label) {
    return entityId + LABEL_SEPARATOR + label;
  }

  /** True for an id made by {@link #labelled}. */
  public static boolean isLabelled(String entityId) {
    return entityId.indexOf(LABEL_SEPARATOR) >= 0;
  }

  public static String encode(String name) {
    return ENCODER.encodeToString(name.getBytes(StandardCharsets.UTF_8));
  }

  /** Decodes a service id; throws {@link IllegalArgumentException} with the reason if malformed. */
  public static ServiceIdParts parseServiceId(String serviceId) {
    int dot = serviceId.lastIndexOf('.');
    if (dot <= 0 || dot != serviceId.length() - 2) {
      throw new IllegalArgumentException("malformed service id: " + serviceId);
    }
    char flag = serviceId.charAt(dot + 1);
    if (flag != '0' && flag != '1') {
      throw new IllegalArgumentException("malformed service id: " + serviceId);
    }
    return new ServiceIdParts(decode(serviceId.substring(0, dot), serviceId), flag == '1');
  }

  /** Splits an instance or endpoint id into its service id and decoded name. */
  public static ChildIdParts parseChildId(String childId) {
    int sep = childId.indexOf('_');
    if (sep <= 0) {
      throw new IllegalArgumentException("malformed id: " + childId);
    }
    String serviceId = childId.substring(0, sep);
    parseServiceId(serviceId);
    return new ChildIdParts(serviceId, decode(childId.substring(sep + 1), childId));
  }

  private static String decode(String base64, String whole) {
    try {
      return new String(DECODER.decode(base64), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("malformed id: " + whole, e);
    }
  }

  public record ServiceIdParts(String name, boolean normal) {}

  public record ChildIdParts(String serviceId, String name) {}
}
