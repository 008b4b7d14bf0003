package io.sextant.storage.elasticsearch;

import static org.assertj.core.api.Assertions.assertThat;

import io.sextant.api.model.DetectPoint;
import io.sextant.api.model.Scope;
import io.sextant.api.storage.Edge;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Edges only ever added to a window, whatever order they come in; the memory bound; what is followed. */
class TopologyWindowsTest {
  private static final TopologyWindows.Window WINDOW = new TopologyWindows.Window(Scope.SERVICE, 1000, 1030);

  private static Edge edge(String from, String to) {
    return new Edge(Scope.SERVICE, from, to, DetectPoint.SERVER, "http");
  }

  private static List<String> keys(TopologyWindows.Edges edges) {
    assertThat(edges.list()).as("the list reads share").containsExactlyElementsOf(edges.byKey().values());
    return edges.list().stream().map(e -> e.sourceId() + ">" + e.destId()).toList();
  }

  @Test
  void aSlowSearchAddsButNeverTakesAwayAndOwnWritesGoToTheWindowsOfTheirMinute() {
    TopologyWindows windows = new TopologyWindows(1 << 20);
    assertThat(windows.read(WINDOW, 1)).isNull();
    windows.found(WINDOW, List.of(edge("a", "b"), edge("b", "c")), 2_000, 2_000);
    // a search that started earlier and found less
    TopologyWindows.Edges after = windows.found(WINDOW, List.of(edge("a", "b")), 1_000, 2_100);
    assertThat(keys(after)).containsExactly("a>b", "b>c");
    assertThat(after.asOfMillis()).isEqualTo(2_000);
    assertThat(windows.found(WINDOW, List.of(edge("b", "c")), 2_050, 2_150).list())
        .as("nothing new: the same list as before").isSameAs(after.list());

    windows.written(1030, List.of(edge("c", "d"), new Edge(Scope.SERVICE_INSTANCE, "i", "j", DetectPoint.SERVER,
        "http")));
    windows.written(1031, List.of(edge("x", "y")));
    assertThat(keys(windows.read(WINDOW, 2_200))).containsExactly("a>b", "b>c", "c>d");
    assertThat(windows.read(new TopologyWindows.Window(Scope.SERVICE, 1031, 1031), 2_200)).as("not read").isNull();
  }

  @Test
  void followsWindowsReadLatelyAndKeepsWithinItsBytes() {
    TopologyWindows.Edges one = TopologyWindows.Edges.none(0).with(List.of(edge("a", "b")),
        0);
    TopologyWindows windows = new TopologyWindows(3 * one.weightBytes());
    for (int i = 0; i < 4; i++) {
      windows.found(new TopologyWindows.Window(Scope.SERVICE, i, i), List.of(edge("a", "b")), 10, i == 3 ? 0 : 10);
    }
    assertThat(windows.bytes()).isLessThanOrEqualTo(3 * one.weightBytes());
    assertThat(windows.read(new TopologyWindows.Window(Scope.SERVICE, 0, 0), 20)).as("least recently used").isNull();
    assertThat(windows.followed(10)).extracting(TopologyWindows.Window::startMinute).containsExactly(1L, 2L);
    windows.read(new TopologyWindows.Window(Scope.SERVICE, 3, 3), 30);
    assertThat(windows.followed(25)).extracting(TopologyWindows.Window::startMinute).containsExactly(3L);

    TopologyWindows.Edges huge = windows.found(WINDOW, java.util.stream.IntStream.range(0, 100)
        .mapToObj(i -> edge("s" + i, "t")).toList(), 40, 40);
    assertThat(huge.byKey()).hasSize(100);
    assertThat(windows.read(WINDOW, 41)).as("larger than the bound: answered, not kept").isNull();
  }
}
