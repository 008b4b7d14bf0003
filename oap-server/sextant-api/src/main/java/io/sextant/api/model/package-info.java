/** The normalised model: records every receiver produces, scopes, layers and detect points. */
package io.sextant.api.model;
