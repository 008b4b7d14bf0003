/**
 * The UI's configuration and the collectors' roster: dashboard templates kept as management documents
 * (shipped ones installed, user changes version-checked), the menu (derived, never stored), and the
 * list of the collectors that share a storage.
 */
package io.sextant.core.management;
