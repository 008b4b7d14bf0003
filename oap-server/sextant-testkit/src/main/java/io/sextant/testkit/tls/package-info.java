/** Certificate authorities and signed certificates made by a test, as PEM files, for TLS and mTLS tests. */
package io.sextant.testkit.tls;
