package io.sextant.core.management;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HorizonTemplatesTest {
  @TempDir
  Path dir;

  @Test
  void eachFileIsARowInHorizonsEnvelopeWithKeysSortedAtEveryLevel() throws Exception {
    Files.writeString(dir.resolve("layer.MESH.json"),
        "{\n  \"key\": \"MESH\",\n  \"components\": {\"traces\": false, \"logs\": false},\n"
            + "  \"dashboards\": {\"service\": [{\"title\": \"Überblick — load\", \"span\": 3, \"rate\": 0.5}]}\n}\n");
    Files.writeString(dir.resolve("overview.mesh.json"), "{\"id\": \"mesh\", \"order\": 5}");
    Files.writeString(dir.resolve("README.md"), "not a template");
    Files.writeString(dir.resolve("layer.MESH.json.bak"), "{}");

    List<ShippedTemplate> rows = HorizonTemplates.fromDirectory(dir);

    assertThat(rows).extracting(ShippedTemplate::id).containsExactly("horizon.layer.MESH", "horizon.overview.mesh");
    assertThat(rows.get(0).configuration()).isEqualTo("{\"content\":{\"components\":{\"logs\":false,\"traces\":false},"
        + "\"dashboards\":{\"service\":[{\"rate\":0.5,\"span\":3,\"title\":\"Überblick — load\"}]},\"key\":\"MESH\"},"
        + "\"kind\":\"layer\",\"name\":\"horizon.layer.MESH\",\"version\":1}");
    assertThat(rows.get(1).configuration()).isEqualTo("{\"content\":{\"id\":\"mesh\",\"order\":5},"
        + "\"kind\":\"overview\",\"name\":\"horizon.overview.mesh\",\"version\":1}");
    assertThat(rows).allSatisfy(r -> assertThat(r.nameKey()).isNull());
  }

  @Test
  void aFileThatIsNotOneJsonObjectIsRefusedByName() throws Exception {
    Files.writeString(dir.resolve("layer.MESH_DP.json"), "[1, 2]");
    assertThatThrownBy(() -> HorizonTemplates.fromDirectory(dir)).hasMessageContaining("layer.MESH_DP.json")
        .hasMessageContaining("one JSON object");
    Files.writeString(dir.resolve("layer.MESH_DP.json"), "{\"key\": ");
    assertThatThrownBy(() -> HorizonTemplates.fromDirectory(dir)).hasMessageContaining("layer.MESH_DP.json")
        .hasMessageContaining("not JSON");
  }

  @Test
  void theDistributionsTemplatesAllLoad() throws Exception {
    List<ShippedTemplate> rows = HorizonTemplates.fromDirectory(Path.of("../../dist/src/layout/config/horizon"));
    assertThat(rows).extracting(ShippedTemplate::id).containsExactly("horizon.layer.K8S_SERVICE",
        "horizon.layer.MESH", "horizon.layer.MESH_DP", "horizon.overview.mesh");
  }
}
