/** The lifecycle every part of the server shares: start, health check, idempotent close. */
package io.sextant.api.component;
