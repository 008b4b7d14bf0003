package io.sextant.api.model;

/** Application protocol of an L7 call; the name doubles as the topology component name. */
public enum CallProtocol {
  HTTP("http"),
  GRPC("GRPC"), // component-libraries.yml id 23, as SkyWalking names it
  TCP("tcp");

  private final String componentName;

  CallProtocol(String componentName) {
    this.componentName = componentName;
  }

  public String componentName() {
    return componentName;
  }
}
