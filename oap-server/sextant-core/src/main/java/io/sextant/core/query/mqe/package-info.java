/** SkyWalking's metrics query expressions (MQE): lexer, parser and evaluator. */
package io.sextant.core.query.mqe;
