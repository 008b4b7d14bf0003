/**
 * The query warm-up after a start: a few in-process rounds of a dashboard's queries through the HTTP
 * exchange, within a small fixed budget, never holding readiness.
 */
package io.sextant.server.warmup;
