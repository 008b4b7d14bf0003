/** The receiver contract and the sink receivers push records into. */
package io.sextant.api.receiver;
