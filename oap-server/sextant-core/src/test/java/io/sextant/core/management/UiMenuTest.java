package io.sextant.core.management;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class UiMenuTest {
  @Test
  void itemsAreActiveExactlyWhenTheirLayerHasDataAndGroupsWhenAnyItemIs() {
    AtomicReference<Set<String>> layers = new AtomicReference<>(Set.of());
    UiMenu menu = new UiMenu(layers::get);

    assertThat(menu.items()).extracting(MenuItem::title).containsExactly("Service Mesh", "Kubernetes");
    assertThat(menu.items()).allSatisfy(g -> {
      assertThat(g.activate()).isFalse();
      assertThat(g.layer()).isEmpty();
      assertThat(g.subItems()).noneMatch(MenuItem::activate);
    });

    layers.set(Set.of("MESH_DP", "GENERAL"));
    MenuItem mesh = menu.items().get(0);
    assertThat(mesh.activate()).isTrue();
    assertThat(mesh.subItems()).extracting(MenuItem::layer, MenuItem::activate)
        .containsExactly(tuple("MESH", false), tuple("MESH_DP", true));
    assertThat(menu.items().get(1).activate()).isFalse();
  }

  @Test
  void titlesIconsAndKeysAreSkyWalkings() {
    MenuItem mesh = UiMenu.SKELETON.get(0);
    assertThat(mesh.icon()).isEqualTo("service_mesh");
    assertThat(mesh.i18nKey()).isEqualTo("service_mesh");
    assertThat(mesh.documentLink()).isNull();
    MenuItem services = mesh.subItems().get(0);
    assertThat(services.title()).isEqualTo("Services");
    assertThat(services.icon()).isNull();
    assertThat(services.i18nKey()).isEqualTo("service_mesh_service");
    assertThat(services.documentLink()).endsWith("/en/setup/envoy/als_setting/");
    MenuItem k8s = UiMenu.SKELETON.get(1).subItems().get(0);
    assertThat(k8s.title() + " " + k8s.layer() + " " + k8s.i18nKey())
        .isEqualTo("Service K8S_SERVICE kubernetes_service");
  }
}
