/** SkyWalking 10.1's metrics query expressions (MQE): lexer, parser and evaluator (docs/mqe.md). */
package io.sextant.core.query.mqe;
