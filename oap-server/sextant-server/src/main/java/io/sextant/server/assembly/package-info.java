/** The one assembly: builds every component from configuration, starts and stops them in order. */
package io.sextant.server.assembly;
