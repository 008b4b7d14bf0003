/** Factories through which the server assembles receivers and storage backends from configuration. */
package io.sextant.api.plugin;
