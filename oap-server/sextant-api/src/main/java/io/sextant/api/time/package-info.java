/** Time buckets and steps in the query protocol's formats. */
package io.sextant.api.time;
