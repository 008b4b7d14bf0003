package io.sextant.api.model;

/** Which side of a call observed it. */
public enum DetectPoint {
  CLIENT,
  SERVER,
  PROXY
}
