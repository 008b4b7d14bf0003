package io.sextant.receiver.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ServiceNameRuleTest {
  private static Pod pod(Map<String, String> labels, String ownerKind, String ownerName) {
    PodBuilder b =
        new PodBuilder()
            .withNewMetadata()
            .withName("reviews-v1-7f78d020dc-x2k9p")
            .withNamespace("bookinfo")
            .withLabels(labels)
            .withAnnotations(Map.of("team", "payments"))
            .endMetadata();
    if (ownerKind != null) {
      b.editMetadata()
          .addNewOwnerReference()
          .withApiVersion("apps/v1")
          .withKind(ownerKind)
          .withName(ownerName)
          .withUid("u1")
          .withController(true)
          .endOwnerReference()
          .endMetadata();
    }
    return b.build();
  }

  private static final ServiceNameRule DEFAULT = ServiceNameRule.defaultRule();

  @Test
  void canonicalNameLabelWinsOverAppLabels() {
    Pod p =
        pod(
            Map.of(
                "app", "plain",
                "app.kubernetes.io/name", "k8s-name",
                "service.istio.io/canonical-name", "canonical"),
            "ReplicaSet",
            "reviews-v1-7f78d020dc");
    assertThat(DEFAULT.apply(p)).isEqualTo("canonical.bookinfo");
  }

  @Test
  void recommendedLabelThenAppLabel() {
    assertThat(DEFAULT.apply(pod(Map.of("app", "a", "app.kubernetes.io/name", "k"), null, null)))
        .isEqualTo("k.bookinfo");
    assertThat(DEFAULT.apply(pod(Map.of("app", "a"), null, null))).isEqualTo("a.bookinfo");
  }

  @Test
  void ownerFallbackStripsReplicaSetHash() {
    assertThat(DEFAULT.apply(pod(Map.of(), "ReplicaSet", "reviews-v1-7f78d020dc")))
        .isEqualTo("reviews-v1.bookinfo");
  }

  @Test
  void ownerFallbackUsesPodTemplateHashLabelWhenPresent() {
    Pod p = pod(Map.of("pod-template-hash", "7f78d020dc"), "ReplicaSet", "reviews-v1-7f78d020dc");
    assertThat(ServiceNameRule.ownerName(p)).isEqualTo("reviews-v1");
  }

  @Test
  void statefulSetAndDaemonSetOwnersKeepTheirName() {
    assertThat(DEFAULT.apply(pod(Map.of(), "StatefulSet", "mysql"))).isEqualTo("mysql.bookinfo");
    assertThat(DEFAULT.apply(pod(Map.of(), "DaemonSet", "fluent-bit"))).isEqualTo("fluent-bit.bookinfo");
  }

  @Test
  void noOwnerFallsBackToPodName() {
    assertThat(DEFAULT.apply(pod(Map.of(), null, null))).isEqualTo("reviews-v1-7f78d020dc-x2k9p.bookinfo");
  }

  @Test
  void customTemplateWithLiteralsAnnotationsAndPod() {
    ServiceNameRule rule = ServiceNameRule.parse("${annotation:team}/${ label:missing | pod }@${namespace}$x");
    assertThat(rule.apply(pod(Map.of(), null, null)))
        .isEqualTo("payments/reviews-v1-7f78d020dc-x2k9p@bookinfo$x");
    assertThat(rule.template()).isEqualTo("${annotation:team}/${ label:missing | pod }@${namespace}$x");
  }

  @Test
  void expressionWithNoValueIsEmpty() {
    assertThat(ServiceNameRule.parse("svc-${label:nope}").apply(pod(Map.of(), null, null))).isEqualTo("svc-");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "   ",
        "${label:app",
        "${}",
        "${label:app||owner}",
        "${label:}",
        "${annotation}",
        "${namespace:x}",
        "${host}",
        "${label:${app}}"
      })
  void badTemplatesAreRejectedWithAClearMessage(String template) {
    assertThatThrownBy(() -> ServiceNameRule.parse(template))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("invalid service name template")
        .hasMessageNotContaining("null");
  }

  @Test
  void unknownSourceMessageListsTheValidOnes() {
    assertThatThrownBy(() -> ServiceNameRule.parse("${lable:app}.${namespace}"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown source 'lable:app'")
        .hasMessageContaining("label:<key>, annotation:<key>, namespace, owner or pod");
  }

  @Test
  void nullTemplateIsRejected() {
    assertThatThrownBy(() -> ServiceNameRule.parse(null)).isInstanceOf(IllegalArgumentException.class);
  }
}
