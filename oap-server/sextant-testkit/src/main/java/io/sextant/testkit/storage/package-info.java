/** The storage compliance suite every backend runs, one abstract class per facet. */
package io.sextant.testkit.storage;
