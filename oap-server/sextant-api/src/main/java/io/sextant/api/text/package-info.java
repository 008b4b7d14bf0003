/** Text helpers shared across modules. */
package io.sextant.api.text;
