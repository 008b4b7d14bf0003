package io.sextant.core.profiling;

import java.util.List;

/**
 * SkyWalking's answer to {@code analysisEBPFProfilingResult}: one tree per outermost frame. Each
 * tree's elements are numbered from 1 breadth-first (a parent before its children, siblings in the
 * order first seen); the root's parent id is {@code "0"}. {@code stackType} is {@code KERNEL_SPACE}
 * or {@code USER_SPACE}; {@code dumpCount} sums the samples through the frame (counts, or off-CPU
 * nanoseconds when aggregating by duration). {@code tip} is null unless something was left out.
 */
public record FlameGraph(String tip, List<Tree> trees) {
  public FlameGraph {
    trees = List.copyOf(trees);
  }

  public record Tree(List<Element> elements) {}

  public record Element(String id, String parentId, String symbol, String stackType, long dumpCount) {}
}
