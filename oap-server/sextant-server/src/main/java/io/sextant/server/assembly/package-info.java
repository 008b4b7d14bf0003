/**
 * The one assembly: {@code SextantServer} builds every component from configuration, starts them in
 * one declared order and stops them in reverse; {@code Main} runs it. What it assembles lives in the
 * rooms beside it: {@code grpc}, {@code http}, {@code lifecycle} and {@code warmup}.
 */
package io.sextant.server.assembly;
