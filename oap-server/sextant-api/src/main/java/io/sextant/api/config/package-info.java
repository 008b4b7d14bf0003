/** Configuration keys declared by each plugin and the validated values they read. */
package io.sextant.api.config;
