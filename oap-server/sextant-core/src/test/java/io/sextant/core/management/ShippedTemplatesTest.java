package io.sextant.core.management;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class ShippedTemplatesTest {
  private static List<ShippedTemplate> load(String dir) {
    return ShippedTemplates.fromClasspath(ShippedTemplatesTest.class.getClassLoader(), dir);
  }

  @Test
  void sextantsOwnDashboardsAllLoad() {
    // Every shipped file is valid, ids and layer_entity_names are unique (else this throws).
    List<ShippedTemplate> shipped = ShippedTemplates.fromClasspath();
    assertThat(shipped).allSatisfy(t -> assertThat(t.hash()).hasSize(64));
  }

  @Test
  void filesAreReadInIndexOrderAsCompactConfigurations() {
    List<ShippedTemplate> shipped = load("ui-templates-v1");

    assertThat(shipped).extracting(ShippedTemplate::id).containsExactly("test-mesh-service", "test-mesh-dp-instance");
    ShippedTemplate dp = shipped.get(1);
    assertThat(dp.configuration()).isEqualTo("{\"name\":\"Test-Mesh-DP-Instance\",\"layer\":\"MESH_DP\","
        + "\"entity\":\"ServiceInstance\",\"isRoot\":false,\"children\":[]}");
    assertThat(dp.nameKey()).isEqualTo("MESH_DP_ServiceInstance_Test-Mesh-DP-Instance");
    assertThat(dp.hash()).isEqualTo(ShippedTemplate.sha256(dp.configuration()));
    assertThat(load("ui-templates-v2").get(0).hash()).isNotEqualTo(shipped.get(0).hash());
    assertThat(load("ui-templates-v2").get(1).hash()).isEqualTo(dp.hash());
  }

  @Test
  void aDirectoryWithoutIndexShipsNothing() {
    assertThat(load("no-such-dir")).isEmpty();
  }

  @Test
  void mistakesInShippedFilesFailNamingTheFile() {
    assertThatThrownBy(() -> load("ui-templates-dup-id"))
        .hasMessage("ui-templates-dup-id/b.json has the id 'same' of a.json");
    assertThatThrownBy(() -> load("ui-templates-dup-name"))
        .hasMessage("ui-templates-dup-name/b.json has the layer_entity_name 'MESH_Service_Same' of a.json");
    assertThatThrownBy(() -> load("ui-templates-missing")).hasMessageContaining("names not-there.json");
    assertThatThrownBy(() -> ShippedTemplates.parse("x.json", "[1]"))
        .hasMessage("shipped UI template x.json is not valid: it must be one JSON object"
            + " {\"id\": ..., \"configuration\": {...}}");
    assertThatThrownBy(() -> ShippedTemplates.parse("x.json", "{\"configuration\": {}}"))
        .hasMessage("shipped UI template x.json is not valid: it needs a non-empty string 'id'");
    assertThatThrownBy(() -> ShippedTemplates.parse("x.json", "{\"id\": \"x\", \"configuration\": {\"name\": \"n\"}}"))
        .hasMessageContaining("needs a non-empty string 'layer'");
    assertThatThrownBy(() -> ShippedTemplates.parse("x.json", "{\"id\": \"x\""))
        .hasMessageStartingWith("shipped UI template x.json is not valid:");
  }

  @Test
  void indexLinesAreTrimmedAndCommentsSkipped() {
    assertThat(ShippedTemplates.fileNames("# c\n a.json \n\n#b.json\nc.json")).containsExactly("a.json", "c.json");
  }
}
