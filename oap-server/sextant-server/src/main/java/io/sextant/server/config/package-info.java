/** The validated configuration: YAML, SEXTANT_* environment variables and every plugin's declared keys. */
package io.sextant.server.config;
