package io.sextant.core.management;

import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The UI menu for the layers Sextant serves, with SkyWalking 10.1's titles, icons, i18n keys,
 * descriptions and links (its {@code menu.yaml}), derived on each request rather than stored: nothing
 * in the protocol edits it, and a derived menu gains new items with an upgrade, where SkyWalking's
 * stored copy keeps the first one ever saved. A layer is active when a service of it has been seen;
 * a group when any of its items is. SkyWalking's Control Plane item (MESH_CP, istiod's own metrics) is
 * left out: Sextant has no receiver for them, so the item could never show anything.
 */
public final class UiMenu {
  private static final String DOCS = "https://skywalking.apache.org/docs/main/next/en/setup/";

  /** The menu with every item inactive; {@link #items()} sets the activation. */
  static final List<MenuItem> SKELETON = List.of(
      group("Service Mesh", "service_mesh", "service_mesh",
          "Service Mesh(Istio) addresses the challenges developers and operators face with a distributed"
              + " or microservices architecture.",
          item("Services", "MESH", "service_mesh_service",
              "Observe Service Mesh through telemetry data collected from Envoy Access Log Service (ALS).",
              DOCS + "envoy/als_setting/"),
          item("Data Plane", "MESH_DP", "service_mesh_data_plane",
              "Observe Envoy Proxy through Envoy Metrics Service.", DOCS + "envoy/metrics_service_setting/")),
      group("Kubernetes", "kubernetes", "kubernetes",
          "Kubernetes is an open-source container orchestration system for automating software deployment,"
              + " scaling, and management.",
          item("Service", "K8S_SERVICE", "kubernetes_service", "Observe Service status and resources from Kubernetes.",
              DOCS + "backend/backend-k8s-monitoring/")));

  private final Supplier<? extends Collection<String>> layersWithData;

  /** @param layersWithData the layers some service has been seen in ({@code listLayers}) */
  public UiMenu(Supplier<? extends Collection<String>> layersWithData) {
    this.layersWithData = layersWithData;
  }

  /** The menu ({@code getMenuItems}), activated by the layers that have data now. */
  public List<MenuItem> items() {
    Set<String> active = Set.copyOf(layersWithData.get());
    return SKELETON.stream().map(i -> activated(i, active)).toList();
  }

  private static MenuItem activated(MenuItem item, Set<String> active) {
    List<MenuItem> subItems = item.subItems().stream().map(s -> activated(s, active)).toList();
    boolean on = subItems.isEmpty() ? active.contains(item.layer()) : subItems.stream().anyMatch(MenuItem::activate);
    return new MenuItem(item.title(), item.icon(), item.layer(), on, subItems, item.description(),
        item.documentLink(), item.i18nKey());
  }

  private static MenuItem group(String title, String icon, String i18nKey, String description, MenuItem... items) {
    return new MenuItem(title, icon, "", false, List.of(items), description, null, i18nKey);
  }

  private static MenuItem item(String title, String layer, String i18nKey, String description, String link) {
    return new MenuItem(title, null, layer, false, List.of(), description, link, i18nKey);
  }
}
