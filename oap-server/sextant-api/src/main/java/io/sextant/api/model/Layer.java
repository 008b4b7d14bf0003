package io.sextant.api.model;

/** Layers as SkyWalking names them; the UI picks dashboards by these literal names. */
public enum Layer {
  UNDEFINED,
  GENERAL,
  MESH,
  MESH_CP,
  MESH_DP,
  K8S_SERVICE
}
