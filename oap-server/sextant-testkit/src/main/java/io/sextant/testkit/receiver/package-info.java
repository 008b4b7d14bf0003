/** The receiver contract test every receiver runs, and the controllable sink it serves receivers with. */
package io.sextant.testkit.receiver;
