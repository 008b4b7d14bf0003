package io.sextant.core.profiling;

import io.sextant.api.ebpf.ProfilingTask;
import io.sextant.api.ebpf.StackBatch;
import io.sextant.api.ebpf.StackSample;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Folds stack samples into SkyWalking's flame-graph trees. A sample's path runs from the outermost
 * frame inwards, as SkyWalking builds it: the user-space stack reversed, then the kernel-space stack
 * reversed (Rover sends each innermost frame first). Frames are equal when symbol and space are.
 */
final class FlameGraphBuilder {
  private final boolean byDuration;
  private final Map<Frame, Node> roots = new LinkedHashMap<>(); // identity: frames are interned
  private final Map<String, Frame> kernelFrames = new HashMap<>();
  private final Map<String, Frame> userFrames = new HashMap<>();

  FlameGraphBuilder(boolean byDuration) {
    this.byDuration = byDuration;
  }

  /** Adds every sample of a batch. */
  void add(StackBatch batch) {
    List<String> symbols = batch.symbols();
    Frame[] kernel = new Frame[symbols.size()];
    Frame[] user = new Frame[symbols.size()];
    boolean duration = byDuration && ProfilingTask.OFF_CPU.equals(batch.targetType());
    Frame[] path = new Frame[16];
    for (StackSample s : batch.samples()) {
      int length = s.userSymbols().length + s.kernelSymbols().length;
      if (length == 0) {
        continue;
      }
      if (path.length < length) {
        path = new Frame[length];
      }
      int n = 0;
      for (int i = s.userSymbols().length - 1; i >= 0; i--) {
        path[n++] = frame(user, userFrames, symbols, s.userSymbols()[i], false);
      }
      for (int i = s.kernelSymbols().length - 1; i >= 0; i--) {
        path[n++] = frame(kernel, kernelFrames, symbols, s.kernelSymbols()[i], true);
      }
      long value = duration ? s.durationNanos() : s.count();
      Node node = roots.computeIfAbsent(path[0], Node::new);
      node.value += value;
      for (int i = 1; i < n; i++) {
        node = node.child(path[i]);
        node.value += value;
      }
    }
  }

  /** The trees, roots in the order first seen. */
  List<FlameGraph.Tree> trees() {
    List<FlameGraph.Tree> trees = new ArrayList<>(roots.size());
    for (Node root : roots.values()) {
      trees.add(tree(root));
    }
    return trees;
  }

  private static FlameGraph.Tree tree(Node root) {
    List<FlameGraph.Element> elements = new ArrayList<>();
    ArrayDeque<Node> queue = new ArrayDeque<>();
    ArrayDeque<String> ids = new ArrayDeque<>();
    int next = 1;
    queue.add(root);
    String rootId = String.valueOf(next++);
    ids.add(rootId);
    elements.add(element(root, rootId, "0"));
    while (!queue.isEmpty()) {
      Node node = queue.poll();
      String id = ids.poll();
      for (int i = 0; i < node.childCount; i++) {
        Node child = node.children[i];
        String childId = String.valueOf(next++);
        elements.add(element(child, childId, id));
        queue.add(child);
        ids.add(childId);
      }
    }
    return new FlameGraph.Tree(elements);
  }

  private static FlameGraph.Element element(Node n, String id, String parentId) {
    return new FlameGraph.Element(id, parentId, n.frame.symbol, n.frame.kernel ? "KERNEL_SPACE" : "USER_SPACE",
        n.value);
  }

  private static Frame frame(Frame[] cache, Map<String, Frame> interned, List<String> symbols, int id,
      boolean kernel) {
    Frame f = cache[id];
    if (f == null) {
      f = interned.computeIfAbsent(symbols.get(id), s -> new Frame(s, kernel));
      cache[id] = f;
    }
    return f;
  }

  /** One frame; interned per space, so equal frames are one object and compare by identity. */
  private static final class Frame {
    final String symbol;
    final boolean kernel;

    Frame(String symbol, boolean kernel) {
      this.symbol = symbol;
      this.kernel = kernel;
    }
  }

  /**
   * A frame on a path with the total through it. Children are few (most frames have one or two):
   * a short array scanned by identity, indexed by an identity map past {@value #SCAN_LIMIT}.
   */
  private static final class Node {
    private static final int SCAN_LIMIT = 8;
    final Frame frame;
    long value;
    Node[] children;
    int childCount;
    IdentityHashMap<Frame, Node> index;

    Node(Frame frame) {
      this.frame = frame;
    }

    Node child(Frame f) {
      if (index != null) {
        Node n = index.get(f);
        if (n == null) {
          n = append(new Node(f));
          index.put(f, n);
        }
        return n;
      }
      for (int i = 0; i < childCount; i++) {
        if (children[i].frame == f) {
          return children[i];
        }
      }
      Node n = append(new Node(f));
      if (childCount > SCAN_LIMIT) {
        index = new IdentityHashMap<>();
        for (int i = 0; i < childCount; i++) {
          index.put(children[i].frame, children[i]);
        }
      }
      return n;
    }

    private Node append(Node n) {
      if (children == null) {
        children = new Node[2];
      } else if (childCount == children.length) {
        children = Arrays.copyOf(children, childCount * 2);
      }
      children[childCount++] = n;
      return n;
    }
  }
}
